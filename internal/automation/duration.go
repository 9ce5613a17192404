package automation

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a wait's length, written as whole days, hours and minutes:
// "90d", "1d12h", "30m".
type Duration time.Duration

var durationUnits = []struct {
	unit byte
	size time.Duration
}{{'d', 24 * time.Hour}, {'h', time.Hour}, {'m', time.Minute}}

// ParseDuration reads a duration written as String writes it: groups of
// a number and a unit (d, h, m), each unit at most once, largest first.
func ParseDuration(s string) (Duration, error) {
	rest, total, next := s, time.Duration(0), 0
	if rest == "" {
		return 0, fmt.Errorf("a duration is a number of days, hours or minutes such as 30m, 1h or 3d")
	}
	for rest != "" {
		i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if i <= 0 || i > 6 {
			return 0, fmt.Errorf("%q is not a duration such as 30m, 1h or 3d", s)
		}
		n, _ := strconv.Atoi(rest[:i]) // at most six digits
		u := next
		for u < len(durationUnits) && durationUnits[u].unit != rest[i] {
			u++
		}
		if u == len(durationUnits) {
			return 0, fmt.Errorf("%q is not a duration such as 30m, 1h or 3d (units d, h, m, largest first)", s)
		}
		total += time.Duration(n) * durationUnits[u].size
		rest, next = rest[i+1:], u+1
	}
	return Duration(total), nil
}

// String writes d in whole days, hours and minutes ("0m" for zero).
func (d Duration) String() string {
	left := time.Duration(d).Truncate(time.Minute)
	var b strings.Builder
	for _, u := range durationUnits {
		if n := left / u.size; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10))
			b.WriteByte(u.unit)
			left -= n * u.size
		}
	}
	if b.Len() == 0 {
		return "0m"
	}
	return b.String()
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30m\", \"1h\" or \"3d\"")
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
