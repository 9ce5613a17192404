// Package fail is the error vocabulary of Sesame's domain code: what went
// wrong (a Kind, refined by a Reason where a client must tell cases
// apart), which input it concerns, a message safe to show, and whether the
// same work may succeed when tried again. It knows nothing of transports:
// internal/httpapi maps kinds to the API's codes and statuses, and queue
// consumers retry transient failures and give up on permanent ones.
package fail

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind is what sort of failure an error is.
type Kind uint8

// The kinds. A new feature adds a Reason, not a Kind, when its failure is
// one of these.
const (
	// KindInternal is a fault of ours: nothing about it is shown. It is the
	// zero Kind, and the kind of every error that is not an *Error.
	KindInternal Kind = iota
	// KindInvalid is an input that is present but unacceptable.
	KindInvalid
	// KindMissing is a required input that is absent.
	KindMissing
	// KindNotFound is a record that is absent, or foreign to the caller.
	KindNotFound
	// KindConflict is a request at odds with the current state.
	KindConflict
	// KindForbidden is a caller known but not allowed to do this.
	KindForbidden
	// KindUnauthorized is a caller not known.
	KindUnauthorized
	// KindTooLarge is an input over a size limit.
	KindTooLarge
	// KindTooMany is a caller over a rate or a quota.
	KindTooMany
	// KindUnavailable is a dependency that cannot take the work right now.
	KindUnavailable
)

var kindNames = [...]string{
	KindInternal:     "internal",
	KindInvalid:      "invalid",
	KindMissing:      "missing",
	KindNotFound:     "not found",
	KindConflict:     "conflict",
	KindForbidden:    "forbidden",
	KindUnauthorized: "unauthorized",
	KindTooLarge:     "too large",
	KindTooMany:      "too many",
	KindUnavailable:  "unavailable",
}

// Kinds lists every kind.
var Kinds = []Kind{
	KindInternal, KindInvalid, KindMissing, KindNotFound, KindConflict, KindForbidden,
	KindUnauthorized, KindTooLarge, KindTooMany, KindUnavailable,
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Reason tells apart failures of one kind that a client must be able to
// tell apart; "" is the kind's plain case. Reasons are declared here, next
// to their kind, so every one has a row in httpapi's table.
type Reason string

// Reasons of KindConflict.
const (
	IdempotencyConflict   Reason = "idempotency_conflict"    // key reused with another request
	IdempotencyInProgress Reason = "idempotency_in_progress" // key's first request still running
	ContactExists         Reason = "contact_exists"          // another contact has the email
	// CampaignNotCancellable is a cancel of a campaign sent, cancelled or
	// discarded.
	CampaignNotCancellable Reason = "campaign_not_cancellable"
	// EmailNotCancellable is a cancel of an email that is not scheduled,
	// or whose send has started.
	EmailNotCancellable Reason = "email_not_cancellable"
)

// Reasons of KindForbidden.
const (
	InsufficientScope  Reason = "insufficient_scope"   // the API key lacks a scope
	AccountNotApproved Reason = "account_not_approved" // the workspace may not send yet
	SenderNotVerified  Reason = "sender_not_verified"  // from is not on a verified domain
)

// Reasons of KindNotFound.
const (
	SenderNotFound Reason = "sender_not_found" // sender_id names no sender of the workspace
)

// Reasons of KindTooMany (its plain case is a rate limit).
const (
	QuotaExceeded Reason = "monthly_quota_exceeded" // the monthly allowance is used up
)

// Error is a failure a caller may be told about. Message is written for
// the caller and never holds internal detail; Err, the cause, is for logs.
type Error struct {
	Kind   Kind
	Reason Reason
	// Param names the offending input field; "" when none applies.
	Param   string
	Message string
	// RetryAfter is how long to wait before trying again; 0 when unknown.
	RetryAfter time.Duration
	// Transient says the same work may succeed when tried again (a
	// dependency down, a remote server failing); otherwise it never will.
	// The constructors set it for KindUnavailable only.
	Transient bool
	Err       error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Reason != "" {
		b.WriteString(" (" + string(e.Reason) + ")")
	}
	if e.Param != "" {
		b.WriteString(" " + e.Param)
	}
	b.WriteString(": " + e.Message)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an error of kind k, refined by reason ("" for none), about
// param ("" for none). It is transient when k is KindUnavailable.
func Errorf(k Kind, reason Reason, param, format string, args ...any) *Error {
	return &Error{
		Kind: k, Reason: reason, Param: param, Message: fmt.Sprintf(format, args...),
		Transient: k == KindUnavailable,
	}
}

// Invalid is the error for a present but unacceptable input.
func Invalid(param, format string, args ...any) *Error {
	return Errorf(KindInvalid, "", param, format, args...)
}

// Missing is the error for an absent required input.
func Missing(param string) *Error {
	return Errorf(KindMissing, "", param, "%s is required", param)
}

// NotFound is the error for a record that is absent or foreign.
func NotFound(what string) *Error {
	return Errorf(KindNotFound, "", "", "%s not found", what)
}

// Unavailable is the transient error of a dependency that cannot take the
// work now; retryAfter (0 when unknown) says when to try again.
func Unavailable(retryAfter time.Duration, format string, args ...any) *Error {
	e := Errorf(KindUnavailable, "", "", format, args...)
	e.RetryAfter = retryAfter
	return e
}

// As returns the *Error err is or wraps.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// KindOf is err's kind: KindInternal for an error that is not an *Error.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return KindInternal
}

// MessageOf is err's message, or a generic one for an internal error,
// whose text may hold detail no caller should see.
func MessageOf(err error) string {
	if e, ok := As(err); ok && e.Kind != KindInternal {
		return e.Message
	}
	return "internal error"
}

// IsPermanent reports whether trying the same work again cannot help: err
// is an *Error not marked transient.
func IsPermanent(err error) bool {
	e, ok := As(err)
	return ok && !e.Transient
}

// IsTransient reports whether trying the same work again may succeed. An
// error fail does not know (a store fault, an ended context) counts as
// transient: when unsure, try again.
func IsTransient(err error) bool {
	return err != nil && !IsPermanent(err)
}

// Wrap is cause, a sentinel a caller tests with errors.Is, told in
// context: cause's kind, reason and param, the message "context: cause's
// message".
func Wrap(cause *Error, format string, args ...any) *Error {
	return &Error{
		Kind: cause.Kind, Reason: cause.Reason, Param: cause.Param,
		Message:   fmt.Sprintf(format, args...) + ": " + cause.Message,
		Transient: cause.Transient, RetryAfter: cause.RetryAfter, Err: cause,
	}
}

// Refused is the error for input param refused because of cause (a parse
// error, a rule of the entity): the message names param, then cause.
func Refused(param string, cause error) *Error {
	msg := cause.Error()
	if e, ok := As(cause); ok {
		msg = e.Message
	}
	return &Error{Kind: KindInvalid, Param: param, Message: param + ": " + msg, Err: cause}
}

// ParamOf is the input err is about: "" for none, or an error that is not
// an *Error.
func ParamOf(err error) string {
	if e, ok := As(err); ok {
		return e.Param
	}
	return ""
}
