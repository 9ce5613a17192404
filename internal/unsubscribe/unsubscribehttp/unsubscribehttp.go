// Package unsubscribehttp serves the public unsubscribe pages outside
// /api/v1: no API key, plain HTML for a person, and RFC 8058 one-click for
// a mailbox provider.
package unsubscribehttp

import (
	"bytes"
	_ "embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"sync"

	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// Handlers serves GET and POST /unsubscribe/{token}.
type Handlers struct {
	Service *unsubscribe.Service
	Logger  *slog.Logger
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.Unsubscribe, Handler: h.Page},
		{Route: routes.UnsubscribeOneClick, Handler: h.OneClick},
	}
}

// maxForm bounds a POST body: the one field, as a form or multipart.
const maxForm = 16 << 10

// Page answers GET /unsubscribe/{token}: a confirmation page whose button
// POSTs. It changes nothing: link scanners and previews follow GETs.
func (h Handlers) Page(w http.ResponseWriter, r *http.Request) error {
	if err := h.Service.Check(r.PathValue("token")); err != nil {
		h.fail(w, r, err)
		return nil
	}
	render(w, http.StatusOK, confirm)
	return nil
}

// OneClick answers POST /unsubscribe/{token} with List-Unsubscribe=One-Click
// (RFC 8058, form-encoded or multipart; the page's form posts the same):
// it unsubscribes at once and answers 200, no redirect, no cookie.
func (h Handlers) OneClick(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	if err := h.Service.Check(token); err != nil {
		h.fail(w, r, err)
		return nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if r.PostFormValue("List-Unsubscribe") != "One-Click" {
		render(w, http.StatusBadRequest, notConfirmed)
		return nil
	}
	if err := h.Service.Unsubscribe(r.Context(), token); err != nil {
		h.fail(w, r, err)
		return nil
	}
	render(w, http.StatusOK, done)
	return nil
}

// fail renders err as a page: a bad token says only that the link is not
// valid; a store fault is 503 with Retry-After; anything else a 500 page,
// its detail logged only.
func (h Handlers) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, unsubscribe.ErrInvalidToken) {
		render(w, http.StatusBadRequest, invalid)
		return
	}
	if httpapi.HidesDetail(err) {
		h.logger().ErrorContext(r.Context(), "unsubscribe failed", slog.String("request_id", httpapi.RequestID(r.Context())), slog.Any("err", err))
	}
	if p, _ := httpapi.ProblemOf(err); p.Status == http.StatusServiceUnavailable {
		httpapi.SetRetryAfter(w, p.RetryAfter)
		render(w, http.StatusServiceUnavailable, unavailable)
		return
	}
	render(w, http.StatusInternalServerError, broken)
}

func (h Handlers) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.Default()
	}
	return h.Logger
}

// page is what one page says.
type page struct {
	Title      string
	Paragraphs []string
	Confirm    bool
}

// The pages. None names the workspace, the contact or the address: a page
// reached with a guessed or tampered link must reveal nothing.
var (
	confirm = page{Title: "Unsubscribe", Confirm: true, Paragraphs: []string{
		"Unsubscribe from these emails? You will no longer receive newsletters, announcements or automated messages from this sender.",
		"Messages about your account or orders may still be sent.",
	}}
	done = page{Title: "You are unsubscribed", Paragraphs: []string{
		"You will no longer receive newsletters, announcements or automated messages from this sender.",
		"Messages about your account or orders may still be sent. If you unsubscribed by mistake, contact the sender.",
	}}
	invalid = page{Title: "This link is not valid", Paragraphs: []string{
		"The unsubscribe link may have been cut short or changed. Open it again from the email, or copy the whole link.",
	}}
	notConfirmed = page{Title: "Nothing was changed", Paragraphs: []string{
		"This request did not confirm an unsubscribe. Open the unsubscribe link from the email again and press the button.",
	}}
	unavailable = page{Title: "Please try again shortly", Paragraphs: []string{
		"Your request could not be completed right now, and nothing was changed. Please try again in a few minutes.",
	}}
	broken = page{Title: "Something went wrong", Paragraphs: []string{
		"Your request could not be completed. Please try again later.",
	}}
)

//go:embed page.html
var pageHTML string

// pageTemplate is parsed on first use, not at init (cold starts).
var pageTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("page").Parse(pageHTML)
})

// securityHeaders keep the page private and inert: no caching (it is one
// recipient's), no referrer (the URL holds the token), no script, no
// framing, forms posting back here only, and no indexing.
var securityHeaders = map[string]string{
	"Content-Type":            "text/html; charset=utf-8",
	"Cache-Control":           "no-store",
	"Referrer-Policy":         "no-referrer",
	"X-Content-Type-Options":  "nosniff",
	"X-Robots-Tag":            "noindex, nofollow",
	"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}

func render(w http.ResponseWriter, status int, p page) {
	var buf bytes.Buffer
	tmpl, err := pageTemplate()
	if err == nil {
		err = tmpl.Execute(&buf, p)
	}
	if err != nil {
		// The pages are fixed text: a failure is a programming error the
		// tests catch; the client still gets the status.
		w.WriteHeader(status)
		return
	}
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // the client may have gone; nothing to do
}
