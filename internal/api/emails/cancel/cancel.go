// Package cancel declares the cancel-email function: the table alone,
// apart from the send functions so it links neither SES nor the MIME
// writer (a cancel never sends).
package cancel

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
)

// CancelEmail serves POST /api/v1/emails/{id}/cancel.
var CancelEmail = tablefn.Read(routes.CancelEmail, func(t *dynamo.Table, _ httpapi.Cursors, logger *slog.Logger) []httpapi.Route {
	return sendinghttp.Handlers{Service: &sending.Service{Store: &sendingdb.Sends{Table: t}, Logger: logger, Now: t.Time}}.Routes()
})
