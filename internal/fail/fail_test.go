package fail_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
)

func TestConstructors(t *testing.T) {
	cases := map[string]struct {
		err       *fail.Error
		kind      fail.Kind
		param     string
		message   string
		transient bool
	}{
		"invalid":     {fail.Invalid("to", "to must be %s", "an address"), fail.KindInvalid, "to", "to must be an address", false},
		"missing":     {fail.Missing("subject"), fail.KindMissing, "subject", "subject is required", false},
		"not found":   {fail.NotFound("email"), fail.KindNotFound, "", "email not found", false},
		"unavailable": {fail.Unavailable(time.Second, "queue down"), fail.KindUnavailable, "", "queue down", true},
		"errorf":      {fail.Errorf(fail.KindForbidden, fail.SenderNotVerified, "from", "a@b.c is not verified"), fail.KindForbidden, "from", "a@b.c is not verified", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := tc.err
			if e.Kind != tc.kind || e.Param != tc.param || e.Message != tc.message || e.Transient != tc.transient {
				t.Errorf("got %+v, want kind %v, param %q, message %q, transient %v", e, tc.kind, tc.param, tc.message, tc.transient)
			}
		})
	}
	if got := fail.Unavailable(3*time.Second, "x").RetryAfter; got != 3*time.Second {
		t.Errorf("RetryAfter = %v", got)
	}
}

// Kinds are told apart through wrapping, and anything else is internal.
func TestKindOfAndMessageOf(t *testing.T) {
	wrapped := fmt.Errorf("send: %w", fail.Errorf(fail.KindTooMany, fail.QuotaExceeded, "", "allowance used"))
	if fail.KindOf(wrapped) != fail.KindTooMany || fail.MessageOf(wrapped) != "allowance used" {
		t.Errorf("wrapped: kind %v, message %q", fail.KindOf(wrapped), fail.MessageOf(wrapped))
	}
	fault := errors.New("dynamodb: connection reset by 10.0.3.7")
	if fail.KindOf(fault) != fail.KindInternal {
		t.Errorf("plain error kind = %v, want internal", fail.KindOf(fault))
	}
	if msg := fail.MessageOf(fault); strings.Contains(msg, "10.0.3.7") || msg == "" {
		t.Errorf("plain error message = %q, want a generic one", msg)
	}
	internal := &fail.Error{Message: "table sesame-prod throttled"}
	if msg := fail.MessageOf(internal); msg != "internal error" {
		t.Errorf("internal *Error message = %q, want the generic one", msg)
	}
}

// A retry decision needs no knowledge of where an error came from: only
// errors known to be permanent are not retried.
func TestPermanence(t *testing.T) {
	upstream := fail.Invalid("attachments", "URL answered 503")
	upstream.Transient = true
	cases := map[string]struct {
		err       error
		permanent bool
	}{
		"invalid input":           {fail.Invalid("to", "bad"), true},
		"not found":               {fail.NotFound("email"), true},
		"too large":               {fail.Errorf(fail.KindTooLarge, "", "", "20 MB"), true},
		"unavailable":             {fail.Unavailable(0, "down"), false},
		"wrapped unavailable":     {fmt.Errorf("x: %w", fail.Unavailable(0, "down")), false},
		"marked transient":        {upstream, false},
		"unknown fault":           {errors.New("connection reset"), false},
		"ended context":           {context.DeadlineExceeded, false},
		"wrapped permanent":       {fmt.Errorf("build: %w", fail.Invalid("attachments", "URL answered 404")), true},
		"permanent in a join":     {errors.Join(errors.New("x"), fail.Missing("to")), true},
		"unavailable made stable": {&fail.Error{Kind: fail.KindUnavailable}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := fail.IsPermanent(tc.err); got != tc.permanent {
				t.Errorf("IsPermanent = %v, want %v", got, tc.permanent)
			}
			if got := fail.IsTransient(tc.err); got != !tc.permanent {
				t.Errorf("IsTransient = %v, want %v", got, !tc.permanent)
			}
		})
	}
	if fail.IsTransient(nil) || fail.IsPermanent(nil) {
		t.Error("nil is neither transient nor permanent")
	}
}

func TestErrorTextKeepsTheCauseForLogs(t *testing.T) {
	e := fail.Invalid("attachments", "URL timed out")
	e.Err = errors.New("dial tcp 10.0.0.1:443: i/o timeout")
	got := e.Error()
	for _, want := range []string{"invalid", "attachments", "URL timed out", "10.0.0.1"} {
		if !strings.Contains(got, want) {
			t.Errorf("Error() = %q, want it to contain %q", got, want)
		}
	}
	if !errors.Is(e, e.Err) {
		t.Error("the cause is not unwrapped")
	}
}

func TestEveryKindHasAName(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range fail.Kinds {
		name := k.String()
		if name == "" || strings.HasPrefix(name, "kind(") || seen[name] {
			t.Errorf("kind %d has name %q", k, name)
		}
		seen[name] = true
	}
}
