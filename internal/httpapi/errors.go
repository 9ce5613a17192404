// Package httpapi is the API core every /api/v1 route runs through: request
// ids, authentication, scopes, rate limit, the error envelope, JSON decoding,
// pagination and structured request logs.
package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Code is a machine-readable error code of the error envelope.
type Code string

// The error codes of the API. Internal detail never goes into a message.
const (
	CodeMissingField          Code = "missing_field"
	CodeInvalidField          Code = "invalid_field"
	CodeUnauthorized          Code = "unauthorized"
	CodeInsufficientScope     Code = "insufficient_scope"
	CodeAccountNotApproved    Code = "account_not_approved"
	CodeSenderNotVerified     Code = "sender_not_verified"
	CodeNotFound              Code = "not_found"
	CodeSenderNotFound        Code = "sender_not_found"
	CodeMethodNotAllowed      Code = "method_not_allowed"
	CodeIdempotencyConflict   Code = "idempotency_conflict"
	CodeIdempotencyInProgress Code = "idempotency_in_progress"
	CodeMessageTooLarge       Code = "message_too_large"
	CodeRateLimited           Code = "rate_limited"
	CodeQuotaExceeded         Code = "monthly_quota_exceeded"
	CodeInternal              Code = "internal_error"
	CodeServiceUnavailable    Code = "service_unavailable"
)

// statusOf maps every code to its HTTP status.
var statusOf = map[Code]int{
	CodeMissingField:          http.StatusBadRequest,
	CodeInvalidField:          http.StatusBadRequest,
	CodeUnauthorized:          http.StatusUnauthorized,
	CodeInsufficientScope:     http.StatusForbidden,
	CodeAccountNotApproved:    http.StatusForbidden,
	CodeSenderNotVerified:     http.StatusForbidden,
	CodeNotFound:              http.StatusNotFound,
	CodeSenderNotFound:        http.StatusNotFound,
	CodeMethodNotAllowed:      http.StatusMethodNotAllowed,
	CodeIdempotencyConflict:   http.StatusConflict,
	CodeIdempotencyInProgress: http.StatusConflict,
	CodeMessageTooLarge:       http.StatusRequestEntityTooLarge,
	CodeRateLimited:           http.StatusTooManyRequests,
	CodeQuotaExceeded:         http.StatusTooManyRequests,
	CodeInternal:              http.StatusInternalServerError,
	CodeServiceUnavailable:    http.StatusServiceUnavailable,
}

// Status is the HTTP status of c; an unknown code is a 500.
func (c Code) Status() int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is an error the client may see. Message is safe to show; Param names
// the offending field; RetryAfter, when set, becomes a Retry-After header.
type Error struct {
	Code       Code
	Message    string
	Param      string
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s (%s): %s", e.Code, e.Param, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf builds a client error about param (empty when no field applies).
func Errorf(code Code, param, format string, args ...any) *Error {
	return &Error{Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// Missing is the error for an absent required field.
func Missing(param string) *Error {
	return Errorf(CodeMissingField, param, "%s is required", param)
}

// Invalid is the error for a present but unacceptable field.
func Invalid(param, format string, args ...any) *Error {
	return Errorf(CodeInvalidField, param, format, args...)
}

// NotFound is the error for a record that is absent or foreign.
func NotFound(what string) *Error {
	return Errorf(CodeNotFound, "", "%s not found", what)
}

// asAPIError returns err as a client error, or false for an internal one.
func asAPIError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
