// Package emails declares the functions of the email read routes
// (list-emails, get-email, list-clicks): each builds the key lookup and
// the email service over the email repositories its route reads, and
// nothing else. The other email routes link more, so they are apart:
// emails/send (send, send-batch), emails/cancel (cancel-email) and
// emails/review (the review queue's consumer).
package emails

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/email/emailhttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The email read routes' functions; the list signs its cursors.
var (
	ListEmails = tablefn.List(routes.ListEmails, reads)
	GetEmail   = tablefn.Read(routes.GetEmail, reads)
	Clicks     = tablefn.Read(routes.Clicks, withClicks)
)

func reads(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return emailhttp.Handlers{Emails: &email.Service{Store: &emaildb.Emails{Table: t}}, Cursors: c}.Routes()
}

func withClicks(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
}

// Handlers serves the email read routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) emailhttp.Handlers {
	return emailhttp.Handlers{Emails: &email.Service{Store: &emaildb.Emails{Table: t}, Clicks: &emaildb.Clicks{Table: t}}, Cursors: c}
}
