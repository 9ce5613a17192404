package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
)

// MIMEDir is where the local stack keeps raw messages, in its data folder.
func MIMEDir(dataDir string) string { return filepath.Join(dataDir, "mime") }

// RawMessages keeps the exact MIME of every message the local stack hands
// to SES (as the transport in front of Next) or captures from a test key
// (as the send service's Capturer), one file per email:
// Dir/<workspace id>/<email id>.eml. A deployed stack keeps none: SES has
// the message, and storing it would cost for every email.
type RawMessages struct {
	Dir string
	// Next is the transport messages go on to (SES); nil where the store
	// only reads (the console).
	Next   sending.Transport
	Emails EmailReader
	Logger *slog.Logger
}

// ErrNoRawMessage is returned for an email whose message is not kept.
var ErrNoRawMessage = errors.New("no raw message kept for this email")

var (
	_ sending.Transport = (*RawMessages)(nil)
	_ sending.Capturer  = (*RawMessages)(nil)
)

// Send keeps the message, then hands it to Next. A message that cannot be
// kept is still sent (and logged): the copy is a convenience.
func (m *RawMessages) Send(ctx context.Context, in sending.SendInput) (string, error) {
	if err := m.keep(in); err != nil {
		m.logger().WarnContext(ctx, "raw message not kept", slog.String("email_id", in.Tags["email_id"]), slog.Any("err", err))
	}
	return m.Next.Send(ctx, in)
}

// Capture keeps a message a test key sent.
func (m *RawMessages) Capture(_ context.Context, in sending.SendInput) error {
	return m.keep(in)
}

func (m *RawMessages) keep(in sending.SendInput) error {
	path, err := m.path(in.Tags["workspace_id"], in.Tags["email_id"])
	if err != nil {
		return err
	}
	return writeFileAtomic(path, in.Raw)
}

// Raw returns the kept message of the workspace's email, or an error that
// is ErrNoRawMessage.
func (m *RawMessages) Raw(workspaceID, emailID string) ([]byte, error) {
	path, err := m.path(workspaceID, emailID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoRawMessage, err)
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoRawMessage
	}
	return raw, err
}

// path is the file of an email; ids are UUIDs, read in their canonical
// lowercase form, and anything else is refused before it names a file.
func (m *RawMessages) path(workspaceID, emailID string) (string, error) {
	ws, errWS := ident.Parse(workspaceID)
	id, errID := ident.Parse(emailID)
	if errWS != nil || errID != nil {
		return "", fmt.Errorf("workspace %q, email %q: not ids", workspaceID, emailID)
	}
	return filepath.Join(m.Dir, ws.String(), id.String()+".eml"), nil
}

func (m *RawMessages) logger() *slog.Logger {
	if m.Logger == nil {
		return slog.Default()
	}
	return m.Logger
}

// RawRoute serves an email's kept message; dev server only, with a key of
// the email's workspace.
var RawRoute = routes.Route{Method: http.MethodGet, Path: "/dev/emails/{id}/raw", Scope: apikey.EmailsRead}

// Routes returns the dev-only route of the raw messages.
func (m *RawMessages) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: RawRoute, Handler: m.Serve}}
}

// Serve answers GET /dev/emails/{id}/raw: the exact bytes handed to SES or
// captured, as message/rfc822; 404 for an email the key's workspace does
// not have, or one whose message was never sent nor captured here.
func (m *RawMessages) Serve(w http.ResponseWriter, r *http.Request) error {
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	id, err := ident.Parse(r.PathValue("id")) // ids are case-insensitive, as in the API
	if err != nil {
		return fail.NotFound("email")
	}
	e, err := m.Emails.GetEmail(r.Context(), ws, id.String())
	if errors.Is(err, email.ErrNotFound) {
		return fail.NotFound("email")
	}
	if err != nil {
		return err
	}
	raw, err := m.Raw(ws, e.ID)
	if errors.Is(err, ErrNoRawMessage) {
		return fail.Errorf(fail.KindNotFound, "", "", "no raw message is kept for this email: the local stack keeps the messages it hands to SES or captures from a test key (not held, suppressed or refused ones)")
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "message/rfc822")
	w.Header().Set("Content-Length", fmt.Sprint(len(raw)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(raw) // a client gone mid-answer is not an error of ours
	return nil
}
