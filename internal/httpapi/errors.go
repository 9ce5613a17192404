// Package httpapi is the API core every /api/v1 route runs through: request
// ids, authentication, scopes, rate limit, the error envelope, JSON decoding,
// pagination and structured request logs.
package httpapi

import (
	"net/http"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
)

// Code is a machine-readable error code of the error envelope.
type Code string

// The error codes of the API. Internal detail never goes into a message.
const (
	CodeMissingField           Code = "missing_field"
	CodeInvalidField           Code = "invalid_field"
	CodeUnauthorized           Code = "unauthorized"
	CodeForbidden              Code = "forbidden"
	CodeInsufficientScope      Code = "insufficient_scope"
	CodeAccountNotApproved     Code = "account_not_approved"
	CodeSenderNotVerified      Code = "sender_not_verified"
	CodeNotFound               Code = "not_found"
	CodeSenderNotFound         Code = "sender_not_found"
	CodeMethodNotAllowed       Code = "method_not_allowed"
	CodeConflict               Code = "conflict"
	CodeIdempotencyConflict    Code = "idempotency_conflict"
	CodeIdempotencyInProgress  Code = "idempotency_in_progress"
	CodeContactExists          Code = "contact_exists"
	CodeCampaignNotCancellable Code = "campaign_not_cancellable"
	CodeEmailNotCancellable    Code = "email_not_cancellable"
	CodeMessageTooLarge        Code = "message_too_large"
	CodeRateLimited            Code = "rate_limited"
	CodeQuotaExceeded          Code = "monthly_quota_exceeded"
	CodeInternal               Code = "internal_error"
	CodeServiceUnavailable     Code = "service_unavailable"
)

// wrongMethod is the API core's own reason: a known path asked with a
// method it does not serve. No domain package has a use for it.
const wrongMethod fail.Reason = "method_not_allowed"

// row is one line of the error table.
type row struct {
	kind   fail.Kind
	reason fail.Reason
	code   Code
	status int
}

// table is the one mapping from domain errors to the API's codes and
// statuses. A kind's row without a reason is its plain case, also used
// for a reason the table does not know.
var table = []row{
	{fail.KindInvalid, "", CodeInvalidField, http.StatusBadRequest},
	{fail.KindInvalid, wrongMethod, CodeMethodNotAllowed, http.StatusMethodNotAllowed},
	{fail.KindMissing, "", CodeMissingField, http.StatusBadRequest},
	{fail.KindUnauthorized, "", CodeUnauthorized, http.StatusUnauthorized},
	{fail.KindForbidden, "", CodeForbidden, http.StatusForbidden},
	{fail.KindForbidden, fail.InsufficientScope, CodeInsufficientScope, http.StatusForbidden},
	{fail.KindForbidden, fail.AccountNotApproved, CodeAccountNotApproved, http.StatusForbidden},
	{fail.KindForbidden, fail.SenderNotVerified, CodeSenderNotVerified, http.StatusForbidden},
	{fail.KindNotFound, "", CodeNotFound, http.StatusNotFound},
	{fail.KindNotFound, fail.SenderNotFound, CodeSenderNotFound, http.StatusNotFound},
	{fail.KindConflict, "", CodeConflict, http.StatusConflict},
	{fail.KindConflict, fail.IdempotencyConflict, CodeIdempotencyConflict, http.StatusConflict},
	{fail.KindConflict, fail.IdempotencyInProgress, CodeIdempotencyInProgress, http.StatusConflict},
	{fail.KindConflict, fail.ContactExists, CodeContactExists, http.StatusConflict},
	{fail.KindConflict, fail.CampaignNotCancellable, CodeCampaignNotCancellable, http.StatusConflict},
	{fail.KindConflict, fail.EmailNotCancellable, CodeEmailNotCancellable, http.StatusConflict},
	{fail.KindTooLarge, "", CodeMessageTooLarge, http.StatusRequestEntityTooLarge},
	{fail.KindTooMany, "", CodeRateLimited, http.StatusTooManyRequests},
	{fail.KindTooMany, fail.QuotaExceeded, CodeQuotaExceeded, http.StatusTooManyRequests},
	{fail.KindUnavailable, "", CodeServiceUnavailable, http.StatusServiceUnavailable},
	{fail.KindInternal, "", CodeInternal, http.StatusInternalServerError},
}

// lookup finds the row of kind and reason, falling back to the kind's
// plain case.
func lookup(kind fail.Kind, reason fail.Reason) row {
	plain := row{kind, "", CodeInternal, http.StatusInternalServerError}
	for _, r := range table {
		switch {
		case r.kind != kind:
		case r.reason == reason:
			return r
		case r.reason == "":
			plain = r
		}
	}
	return plain
}

// Status is the HTTP status the table gives c; an unknown code is a 500.
func (c Code) Status() int {
	for _, r := range table {
		if r.code == c {
			return r.status
		}
	}
	return http.StatusInternalServerError
}

// Problem is an error as a client sees it: the envelope's fields and the
// HTTP status.
type Problem struct {
	Status     int
	Code       Code
	Message    string
	Param      string
	RetryAfter time.Duration
}

// internalProblem is all a client learns of a fault.
var internalProblem = Problem{
	Status: http.StatusInternalServerError, Code: CodeInternal,
	Message: "internal error; retry later or contact support with the request id",
}

// ProblemOf maps err through the table. ok is false for a fault (an error
// that is not a *fail.Error, or one of kind internal): its detail must be
// logged, and only internalProblem shown.
func ProblemOf(err error) (p Problem, ok bool) {
	e, ok := fail.As(err)
	if !ok || e.Kind == fail.KindInternal {
		return internalProblem, false
	}
	r := lookup(e.Kind, e.Reason)
	return Problem{Status: r.status, Code: r.code, Message: e.Message, Param: e.Param, RetryAfter: e.RetryAfter}, true
}
