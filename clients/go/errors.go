package sesame

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is an answer of the API other than a success: the spec's error
// envelope, its status and its Retry-After. Match it with errors.As.
type Error struct {
	StatusCode int
	// Code is the envelope's code (e.g. "invalid_field", "rate_limited");
	// empty when the body was not the envelope (a proxy's own answer).
	Code    string
	Message string
	// Param names the offending field, header or query parameter; empty
	// when the API gave null.
	Param     string
	RequestID string
	// RetryAfter is the Retry-After header; zero when absent.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sesame: %d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Param != "" {
		b.WriteString(" (" + e.Param + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" [request " + e.RequestID + "]")
	}
	return b.String()
}

// maxErrorBody caps what an error answer is read for.
const maxErrorBody = 64 << 10

// errorFrom reads a non-2xx answer into an *Error.
func errorFrom(res *http.Response) *Error {
	e := &Error{StatusCode: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	e.RetryAfter, _ = retryAfter(res.Header)
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var env struct {
		Error *struct {
			Code      string  `json:"code"`
			Message   string  `json:"message"`
			Param     *string `json:"param"`
			RequestID string  `json:"request_id"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &env) == nil && env.Error != nil {
		e.Code, e.Message = env.Error.Code, env.Error.Message
		if env.Error.Param != nil {
			e.Param = *env.Error.Param
		}
		if env.Error.RequestID != "" {
			e.RequestID = env.Error.RequestID
		}
		return e
	}
	e.Message = strings.TrimSpace(string(raw))
	if e.Message == "" {
		e.Message = http.StatusText(res.StatusCode)
	}
	return e
}

// retryAfter reads Retry-After as seconds or an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
