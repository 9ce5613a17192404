package httpapi

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
)

type envelope struct {
	Error envelopeBody `json:"error"`
}

type envelopeBody struct {
	Code      Code    `json:"code"`
	Message   string  `json:"message"`
	Param     *string `json:"param"`
	RequestID string  `json:"request_id"`
}

// WriteJSON writes v as a JSON response with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client may have gone; nothing to do
}

// writeProblem writes p in the error envelope with the request's id.
func writeProblem(w http.ResponseWriter, r *http.Request, p Problem) {
	SetRetryAfter(w, p.RetryAfter)
	body := envelopeBody{Code: p.Code, Message: p.Message, RequestID: RequestID(r.Context())}
	if p.Param != "" {
		body.Param = &p.Param
	}
	WriteJSON(w, p.Status, envelope{Error: body})
}

// SetRetryAfter sets the Retry-After header to d in whole seconds,
// rounded up; nothing when d is not positive.
func SetRetryAfter(w http.ResponseWriter, d time.Duration) {
	if d > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	}
}

// Data wraps a single record as {"data": …}.
type Data[T any] struct {
	Data T `json:"data"`
}

// List is the envelope of every list endpoint.
type List[T any] struct {
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// WriteDeleted answers a delete of the resource id: 200 with
// {"data": {"id": …, "deleted": true}}, the one shape every delete route
// answers with.
func WriteDeleted(w http.ResponseWriter, id string) {
	WriteJSON(w, http.StatusOK, Data[deleted]{Data: deleted{ID: id, Deleted: true}})
}

type deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}
