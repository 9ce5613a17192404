// Package sendinghttp serves POST /api/v1/send and /send/batch over the
// sending service: headers, body decoding, per-item answers of a batch.
package sendinghttp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
)

// Handlers serves the send routes.
type Handlers struct {
	Service *sending.Service
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.Send, Handler: h.Send},
		{Route: routes.SendBatch, Handler: h.Batch},
		{Route: routes.CancelEmail, Handler: h.Cancel},
	}
}

// Cancel answers POST /api/v1/emails/{id}/cancel: the email, cancelled.
func (h Handlers) Cancel(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "email")
	if err != nil {
		return err
	}
	e, err := h.Service.Cancel(r.Context(), httpapi.PrincipalFrom(r.Context()), id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[email.View]{Data: e.View()})
	return nil
}

func (h Handlers) logger() *slog.Logger {
	if h.Service.Logger == nil {
		return slog.Default()
	}
	return h.Service.Logger
}

// IdempotencyKey reads the optional Idempotency-Key header (every route
// that takes it reads it by this rule).
func IdempotencyKey(r *http.Request) (string, error) {
	k := r.Header.Get("Idempotency-Key")
	if k == "" {
		return "", nil
	}
	if len(k) > 255 {
		return "", fail.Invalid("Idempotency-Key", "Idempotency-Key must be at most 255 characters")
	}
	for _, c := range k {
		if c < 0x21 || c > 0x7e {
			return "", fail.Invalid("Idempotency-Key", "Idempotency-Key must be printable ASCII without spaces")
		}
	}
	return k, nil
}

// Validator is a request body that checks itself.
type Validator interface{ Validate() error }

// ReadIdempotent reads a body that an Idempotency-Key may replay: the key,
// the body decoded into req and validated, and the body's hash for the
// route (both "" without a key).
func ReadIdempotent(r *http.Request, route routes.Route, req Validator) (idem, hash string, err error) {
	if idem, err = IdempotencyKey(r); err != nil {
		return "", "", err
	}
	if err := httpapi.DecodeJSON(r, req); err != nil {
		return "", "", err
	}
	if err := req.Validate(); err != nil {
		return "", "", err
	}
	if idem != "" {
		hash = sending.RequestHash(route.Path, req)
	}
	return idem, hash, nil
}

// deadlineMargin is kept free before the function's own deadline, so a
// send that runs late still undoes what it wrote before Lambda ends it.
const deadlineMargin = 3 * time.Second

// withMargin ends r's context deadlineMargin before its deadline, if any.
func withMargin(r *http.Request) (*http.Request, context.CancelFunc) {
	deadline, ok := r.Context().Deadline()
	if !ok {
		return r, func() {}
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline.Add(-deadlineMargin))
	return r.WithContext(ctx), cancel
}

// Send answers POST /api/v1/send.
func (h Handlers) Send(w http.ResponseWriter, r *http.Request) error {
	r, cancel := withMargin(r)
	defer cancel()
	var req sending.Request
	idem, hash, err := ReadIdempotent(r, routes.Send, &req)
	if err != nil {
		return err
	}
	p := httpapi.PrincipalFrom(r.Context())
	out, err := h.Service.Send(r.Context(), p, req, idem, hash)
	if err != nil {
		return err
	}
	h.Service.NoteSends(r.Context(), p, out.Made())
	httpapi.WriteJSON(w, out.StatusCode, out.Body)
	return nil
}

// BatchRequest is the body of POST /api/v1/send/batch.
type BatchRequest struct {
	Emails []json.RawMessage `json:"emails"`
}

// BatchItem is the result of one email of a batch: the send answer, or the
// error it would have had on its own, with params scoped to emails[i].
type BatchItem struct {
	Index int `json:"index"`
	*sending.Response
	Error *httpapi.ItemError `json:"error,omitempty"`
}

// Batch answers POST /api/v1/send/batch: every item is validated and sent
// as /send would, independently; the answer lists each item's outcome.
func (h Handlers) Batch(w http.ResponseWriter, r *http.Request) error {
	r, cancel := withMargin(r)
	defer cancel()
	idem, err := IdempotencyKey(r)
	if err != nil {
		return err
	}
	var req BatchRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Emails == nil {
		return fail.Missing("emails")
	}
	if err := sending.CheckBatch(len(req.Emails)); err != nil {
		return err
	}
	batch := make([]sending.BatchItem, len(req.Emails))
	for i, raw := range req.Emails {
		batch[i].Err = httpapi.DecodeValue(raw, &batch[i].Request)
	}
	results, err := h.Service.SendBatch(r.Context(), httpapi.PrincipalFrom(r.Context()), batch, idem, routes.SendBatch.Path)
	if err != nil {
		return err
	}
	items := make([]BatchItem, len(results))
	for i, res := range results {
		items[i].Index = i
		if res.Err == nil {
			items[i].Response = res.Response
			continue
		}
		problem, ok := httpapi.ProblemOf(res.Err)
		if !ok {
			h.logger().ErrorContext(r.Context(), "batch item failed", slog.Int("index", i), slog.Any("err", res.Err))
			problem.Message = "internal error; this email was not sent, retry it"
		}
		items[i].Error = httpapi.NewItemError(problem, "emails["+strconv.Itoa(i)+"]")
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[[]BatchItem]{Data: items})
	return nil
}
