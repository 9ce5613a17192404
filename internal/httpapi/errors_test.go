package httpapi_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
)

// The spec's error codes and statuses, reached from domain errors.
func TestErrorTable(t *testing.T) {
	cases := []struct {
		kind   fail.Kind
		reason fail.Reason
		code   httpapi.Code
		status int
	}{
		{fail.KindMissing, "", "missing_field", 400},
		{fail.KindInvalid, "", "invalid_field", 400},
		{fail.KindUnauthorized, "", "unauthorized", 401},
		{fail.KindForbidden, fail.InsufficientScope, "insufficient_scope", 403},
		{fail.KindForbidden, fail.AccountNotApproved, "account_not_approved", 403},
		{fail.KindForbidden, fail.SenderNotVerified, "sender_not_verified", 403},
		{fail.KindNotFound, "", "not_found", 404},
		{fail.KindNotFound, fail.SenderNotFound, "sender_not_found", 404},
		{fail.KindConflict, fail.IdempotencyConflict, "idempotency_conflict", 409},
		{fail.KindConflict, fail.IdempotencyInProgress, "idempotency_in_progress", 409},
		{fail.KindConflict, fail.ContactExists, "contact_exists", 409},
		{fail.KindConflict, fail.CampaignNotCancellable, "campaign_not_cancellable", 409},
		{fail.KindTooLarge, "", "message_too_large", 413},
		{fail.KindTooMany, "", "rate_limited", 429},
		{fail.KindTooMany, fail.QuotaExceeded, "monthly_quota_exceeded", 429},
		{fail.KindUnavailable, "", "service_unavailable", 503},
		// Plain cases of kinds whose spec codes all carry a reason.
		{fail.KindConflict, "", "conflict", 409},
		{fail.KindForbidden, "", "forbidden", 403},
		// A reason the table does not know falls back to its kind's plain case.
		{fail.KindConflict, "no_such_reason", "conflict", 409},
		{fail.KindInvalid, fail.QuotaExceeded, "invalid_field", 400},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.kind, tc.reason), func(t *testing.T) {
			e := fail.Errorf(tc.kind, tc.reason, "field", "told to the client")
			e.RetryAfter = time.Second
			p, ok := httpapi.ProblemOf(fmt.Errorf("wrapped: %w", e))
			if !ok {
				t.Fatal("a domain error was taken for a fault")
			}
			want := httpapi.Problem{Status: tc.status, Code: tc.code, Message: "told to the client", Param: "field", RetryAfter: time.Second}
			if p != want {
				t.Errorf("problem = %+v, want %+v", p, want)
			}
		})
	}
}

// Every kind has a row; only faults are internal.
func TestEveryKindIsMapped(t *testing.T) {
	for _, k := range fail.Kinds {
		p, ok := httpapi.ProblemOf(&fail.Error{Kind: k, Message: "m"})
		if k == fail.KindInternal {
			if ok || p.Status != 500 || p.Code != "internal_error" {
				t.Errorf("internal kind: %+v, client error %v", p, ok)
			}
			continue
		}
		if !ok || p.Code == "internal_error" || p.Status == 500 {
			t.Errorf("kind %s has no row: %+v", k, p)
		}
	}
}

// A fault shows nothing of itself.
func TestProblemOfAFault(t *testing.T) {
	p, ok := httpapi.ProblemOf(errors.New(storeFault))
	if ok || p.Status != 500 || p.Code != "internal_error" || p.Message == storeFault || p.Param != "" {
		t.Errorf("fault: %+v, client error %v", p, ok)
	}
}

// Detail the answer hides goes to the log: a fault, an internal error,
// and the cause of a 503; a client error says all there is.
func TestHidesDetail(t *testing.T) {
	unavailable := fail.Unavailable(time.Second, "try again")
	unavailable.Err = errors.New(storeFault)
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"fault":                 {errors.New(storeFault), true},
		"internal":              {fail.Errorf(fail.KindInternal, "", "", "broken"), true},
		"unavailable, a cause":  {fmt.Errorf("put: %w", unavailable), true},
		"unavailable, no cause": {fail.Unavailable(time.Second, "busy"), false},
		"invalid":               {fail.Invalid("email", "bad"), false},
	} {
		if got := httpapi.HidesDetail(tc.err); got != tc.want {
			t.Errorf("%s: HidesDetail = %v, want %v", name, got, tc.want)
		}
	}
}

// Retry-After is whole seconds, rounded up, and absent for no wait.
func TestSetRetryAfter(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "", -time.Second: "", 1500 * time.Millisecond: "2", 2 * time.Second: "2"} {
		rec := httptest.NewRecorder()
		httpapi.SetRetryAfter(rec, d)
		if got := rec.Header().Get("Retry-After"); got != want {
			t.Errorf("SetRetryAfter(%v): %q, want %q", d, got, want)
		}
	}
}
