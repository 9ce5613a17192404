// Package deliverabilityhttp serves POST /api/v1/deliverability/check over
// the deliverability package.
package deliverabilityhttp

import (
	"errors"
	"net/http"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the deliverability check. It writes nothing, and reads
// only the key's workspace, for the brands it owns.
type Handlers struct {
	Checks *deliverability.Service
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.CheckDeliverability, Handler: h.Check}}
}

// Request is the body of POST /api/v1/deliverability/check. subject and
// html are pointers so that an absent field (missing_field) is told from
// an empty one, which is checked.
type Request struct {
	Subject *string `json:"subject"`
	HTML    *string `json:"html"`
	From    string  `json:"from,omitempty"`
	Bulk    bool    `json:"bulk,omitempty"`
}

// Input validates r as /send validates the same fields and returns what
// the check reads.
func (r Request) Input() (deliverability.Input, error) {
	switch {
	case r.Subject == nil:
		return deliverability.Input{}, fail.Missing("subject")
	case r.HTML == nil:
		return deliverability.Input{}, fail.Missing("html")
	}
	if err := email.CheckSubject(*r.Subject); err != nil {
		return deliverability.Input{}, fail.Invalid("subject", "%s", err)
	}
	in := deliverability.Input{Subject: *r.Subject, HTML: *r.HTML, Bulk: r.Bulk}
	if r.From != "" {
		from, err := compose.ParseSender(r.From)
		if errors.Is(err, compose.ErrForeignName) {
			return in, fail.Invalid("from", "from: %s", err)
		} else if err != nil {
			return in, fail.Invalid("from", "from must be one email address: %s", err)
		}
		in.SenderDomain = identity.DomainOf(from.Address)
	}
	return in, nil
}

// Check answers POST /api/v1/deliverability/check with the report.
func (h Handlers) Check(w http.ResponseWriter, r *http.Request) error {
	var req Request
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	in, err := req.Input()
	if err != nil {
		return err
	}
	if r.Host != "" {
		// The caller reached the stack at this address: its links there
		// (unsubscribe, dashboard) are Sesame's own.
		in.Own = []string{"//" + r.Host}
	}
	report, err := h.Checks.Check(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, in)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[deliverability.Report]{Data: report})
	return nil
}
