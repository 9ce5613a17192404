package dashboard

import (
	"net/http"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/identity"
)

func (a *App) senderRoutes() []route {
	return []route{
		{pattern: "GET /settings/senders", handler: a.senders},
		{pattern: "POST /settings/senders", handler: a.addSender},
	}
}

type sendersData struct {
	identity.SenderList
	Notice, Error string
}

func (a *App) sendersPage(w http.ResponseWriter, r *http.Request, s *session, status int, d sendersData) error {
	list, err := a.svc.Owner.Senders.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	d.SenderList = list
	return a.render(w, s, status, "senders.html", "Senders", "/settings", d)
}

func (a *App) senders(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.sendersPage(w, r, s, http.StatusOK, sendersData{})
}

func (a *App) addSender(w http.ResponseWriter, r *http.Request, s *session) error {
	replyTo := commaList(r.PostFormValue("reply-to"))
	sender, err := a.svc.Owner.Senders.Add(r.Context(), identity.SenderRequest{
		WorkspaceID: s.WorkspaceID, From: strings.TrimSpace(r.PostFormValue("from")), ReplyTo: replyTo,
		Default: r.PostFormValue("default") == "yes",
	})
	if msg, ok := refusal(err); ok {
		return a.sendersPage(w, r, s, http.StatusBadRequest, sendersData{Error: msg})
	}
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionSenderAdded, sender.ID); err != nil {
		return err
	}
	return a.sendersPage(w, r, s, http.StatusOK, sendersData{Notice: sender.Email + " was added."})
}
