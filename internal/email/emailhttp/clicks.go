package emailhttp

import (
	"errors"
	"net/http"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/timestamp"
)

// ClickView is one entry of the click list.
type ClickView struct {
	URL           *string `json:"url"`
	ClickedAt     string  `json:"clicked_at"`
	UserAgent     *string `json:"user_agent"`
	Reconstructed bool    `json:"reconstructed"`
}

// ClickList is the body of GET /api/v1/emails/{id}/clicks.
type ClickList struct {
	Data         []ClickView `json:"data"`
	OptOutClicks int         `json:"opt_out_clicks"`
	Truncated    bool        `json:"truncated"`
}

// Clicks answers GET /api/v1/emails/{id}/clicks: every tracked click,
// newest first; unsubscribe clicks are only counted. An email that kept
// only its latest click time (older rows) shows one reconstructed entry.
func (h Handlers) Clicks(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "email")
	if err != nil {
		return err
	}
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	e, err := h.Store.GetEmail(r.Context(), ws, id)
	if errors.Is(err, email.ErrNotFound) {
		return fail.NotFound("email")
	}
	if err != nil {
		return err
	}
	clicks, truncated, err := h.ClickStore.ListClicks(r.Context(), ws, id, email.MaxClicks)
	if err != nil {
		return err
	}
	out := ClickList{Data: make([]ClickView, 0, len(clicks)), OptOutClicks: e.OptOutClicks, Truncated: truncated}
	for _, c := range clicks {
		v := ClickView{URL: &c.URL, ClickedAt: timestamp.Format(c.ClickedAt)}
		if c.UserAgent != "" {
			v.UserAgent = &c.UserAgent
		}
		out.Data = append(out.Data, v)
	}
	if len(clicks) == 0 && e.ClickedAt != nil {
		out.Data = append(out.Data, ClickView{ClickedAt: timestamp.Format(*e.ClickedAt), Reconstructed: true})
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
