// Package sending sends one email as POST /api/v1/send (and each item of
// /send/batch) asks: validation, sender and tracking resolution, the
// security hold and its review, idempotency, test-mode capture and
// delivery through a Transport. Its routes are served by sendinghttp.
package sending

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/textproto"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// Request is the body of POST /api/v1/send (and one item of a batch).
type Request struct {
	To          string             `json:"to"`
	Subject     string             `json:"subject"`
	HTML        string             `json:"html"`
	SenderID    string             `json:"sender_id,omitempty"`
	From        string             `json:"from,omitempty"`
	ReplyTo     ReplyTo            `json:"reply_to,omitempty"`
	Attachments []attachment.Input `json:"attachments,omitempty"`
	Tracking    string             `json:"tracking,omitempty"`
	// TemplateID sends a stored template's latest version, rendered with
	// Variables, instead of a subject and an html.
	TemplateID string            `json:"template_id,omitempty"`
	Variables  map[string]string `json:"variables,omitempty"`
	// Text is the caller's own text/plain part; empty: derived from html.
	Text string `json:"text,omitempty"`
	// Headers are the caller's own headers (compose.CheckCallerHeader).
	Headers map[string]string `json:"headers,omitempty"`
	Tags    []email.Tag       `json:"tags,omitempty"`
	// ScheduledAt (RFC 3339) sends the email then rather than now.
	ScheduledAt string `json:"scheduled_at,omitempty"`
	// Cc and Bcc are read only to be refused with a pointer to
	// /send/batch (docs/decisions.md).
	Cc  json.RawMessage `json:"cc,omitempty"`
	Bcc json.RawMessage `json:"bcc,omitempty"`
}

// MaxHeaders is how many headers of its own a send may carry.
const MaxHeaders = 20

// MaxText bounds the text part, as attachments bound the message: the
// 20 MB of SES's ceiling.
const MaxText = 10 << 20

// ReplyTo is reply_to, given as one address or an array of them.
type ReplyTo []string

// UnmarshalJSON takes a string or an array of strings.
func (r *ReplyTo) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*r = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*r = ReplyTo{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fail.Invalid("reply_to", "reply_to must be an address or an array of addresses")
	}
	*r = many
	return nil
}

// Validate checks everything that needs no I/O. Errors carry the field as
// param (a batch scopes it to its item: httpapi.NewItemError).
func (r *Request) Validate() error {
	if err := r.checkTemplate(); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(r.To) == "":
		return fail.Missing("to")
	case r.TemplateID != "":
	case r.Subject == "":
		return fail.Missing("subject")
	case strings.TrimSpace(r.HTML) == "":
		return fail.Missing("html")
	}
	to, err := compose.ParseAddress(r.To)
	if err != nil {
		return fail.Invalid("to", "to must be one email address: %s", err)
	}
	r.To = to.Address
	if err := email.CheckSubject(r.Subject); r.TemplateID == "" && err != nil {
		return fail.Invalid("subject", "%s", err)
	}
	if r.From != "" && r.SenderID == "" {
		if _, err := compose.ParseSender(r.From); errors.Is(err, compose.ErrForeignName) {
			return fail.Invalid("from", "from: %s", err)
		} else if err != nil {
			return fail.Invalid("from", "from must be one email address: %s", err)
		}
	}
	if err := checkReplyTo(r.ReplyTo, "reply_to"); err != nil {
		return err
	}
	if r.Tracking != "" && !email.TrackingMode(r.Tracking).Valid() {
		return fail.Invalid("tracking", "tracking must be full, essential or off")
	}
	for param, v := range map[string]json.RawMessage{"cc": r.Cc, "bcc": r.Bcc} {
		if v != nil {
			return fail.Invalid(param, "%s is not supported: each email has one recipient, so its delivery, opens and bounces are its own; send one email per recipient with POST /api/v1/send/batch", param)
		}
	}
	if err := r.validateExtras(); err != nil {
		return err
	}
	return attachment.Validate(r.Attachments)
}

// checkTemplate checks template_id and variables: a template gives the
// subject and the html, so neither may be sent with it.
func (r *Request) checkTemplate() error {
	switch {
	case r.TemplateID == "" && r.Variables != nil:
		return fail.Invalid("variables", "variables are for a stored template: give template_id, or put the values in subject and html")
	case r.TemplateID == "":
		return nil
	case r.Subject != "":
		return fail.Invalid("subject", "a template gives the subject: send template_id or subject and html, not both")
	case r.HTML != "":
		return fail.Invalid("html", "a template gives the html: send template_id or subject and html, not both")
	}
	id, err := ident.Parse(r.TemplateID)
	if err != nil {
		return fail.Invalid("template_id", "template_id must be a template's id (a UUID)")
	}
	r.TemplateID = id.String()
	return emailtemplate.CheckVariables(r.Variables)
}

// validateExtras checks the optional fields beyond the spec's: text,
// headers, tags and the syntax of scheduled_at (its range needs the
// clock: Plan).
func (r *Request) validateExtras() error {
	if !utf8.ValidString(r.Text) || strings.ContainsRune(r.Text, 0) {
		return fail.Invalid("text", "text must be UTF-8 text without NUL")
	}
	if len(r.Text) > MaxText {
		return fail.Invalid("text", "text must be at most %d MB", MaxText>>20)
	}
	if len(r.Headers) > MaxHeaders {
		return fail.Invalid("headers", "headers takes at most %d headers", MaxHeaders)
	}
	seen := make(map[string]bool, len(r.Headers))
	for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
		if err := compose.CheckCallerHeader(name, r.Headers[name]); err != nil {
			return fail.Invalid("headers", "headers: %s", strings.TrimPrefix(err.Error(), compose.ErrInvalid.Error()+": "))
		}
		ck := textproto.CanonicalMIMEHeaderKey(name)
		if seen[ck] {
			return fail.Invalid("headers", "headers: %s is given twice (names are case-insensitive)", ck)
		}
		seen[ck] = true
	}
	if err := email.CheckTags(r.Tags); err != nil {
		return fail.Invalid("tags", "%s", err)
	}
	if r.ScheduledAt != "" {
		if _, err := time.Parse(time.RFC3339, r.ScheduledAt); err != nil {
			return fail.Invalid("scheduled_at", "scheduled_at must be an RFC 3339 time with its offset, e.g. 2026-12-01T09:00:00Z")
		}
	}
	return nil
}

// checkReplyTo checks reply-to addresses (the request's or a sender's
// default) as Build will read them; param names them in a refusal.
func checkReplyTo(list []string, param string) error {
	if len(list) > 10 {
		return fail.Invalid(param, "reply_to takes at most 10 addresses")
	}
	for i, s := range list {
		if _, err := compose.ParseSender(s); err != nil {
			return fail.Invalid(param, "reply_to entry %d is not a valid address: %s", i, err)
		}
	}
	return nil
}
