package emailhttp

import (
	"net/http"

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
	list, err := h.Emails.ClickList(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, id)
	if err != nil {
		return err
	}
	out := ClickList{Data: make([]ClickView, 0, len(list.Clicks)), OptOutClicks: list.OptOutClicks, Truncated: list.Truncated}
	for _, c := range list.Clicks {
		v := ClickView{URL: &c.URL, ClickedAt: timestamp.Format(c.ClickedAt)}
		if c.UserAgent != "" {
			v.UserAgent = &c.UserAgent
		}
		out.Data = append(out.Data, v)
	}
	if list.Reconstructed != nil {
		out.Data = append(out.Data, ClickView{ClickedAt: timestamp.Format(*list.Reconstructed), Reconstructed: true})
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
