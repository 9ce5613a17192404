package mcpserver

import (
	"context"
	"net/http"
	"net/mail"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
)

// SegmentLister lists a workspace's segments (segment.Service).
type SegmentLister interface {
	List(ctx context.Context, workspaceID string) ([]segment.Segment, error)
}

// SenderLister lists the senders a workspace may send from now
// (identity.Senders).
type SenderLister interface {
	Sendable(ctx context.Context, workspaceID string) (identity.SenderList, error)
}

// The calls no /api/v1 route serves (the API has no segment or sender
// reads) are served as routes of the MCP function behind the same API
// core, so their token check, scope, rate limit and errors are a route's;
// they exist only in-process: no request from outside reaches them.
var (
	segmentsRoute = routes.Route{Function: routes.MCP.Function, Method: http.MethodGet, Path: "/mcp/own/segments", Scope: apikey.SegmentsRead}
	sendersRoute  = routes.Route{Function: routes.MCP.Function, Method: http.MethodGet, Path: "/mcp/own/senders", Scope: apikey.DomainsRead}
	ownRoutes     = []routes.Route{segmentsRoute, sendersRoute}
)

// own is the handlers of ownRoutes over b's services: the caller's
// workspace in, the entity's view out.
func (b Backend) own() []httpapi.Route {
	return []httpapi.Route{
		{Route: segmentsRoute, Handler: func(w http.ResponseWriter, r *http.Request) error {
			segs, err := b.Segments.List(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID)
			if err != nil {
				return err
			}
			views := make([]segment.View, len(segs))
			for i, s := range segs {
				views[i] = s.View()
			}
			httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[[]segment.View]{Data: views})
			return nil
		}},
		{Route: sendersRoute, Handler: func(w http.ResponseWriter, r *http.Request) error {
			list, err := b.Senders.Sendable(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID)
			if err != nil {
				return err
			}
			views := make([]senderView, len(list.Senders))
			for i, s := range list.Senders {
				views[i] = viewSender(s, s.ID == list.DefaultID)
			}
			httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[[]senderView]{Data: views})
			return nil
		}},
	}
}

// senderView is a sender as the senders resource shows it: From is the
// value a send's from field takes.
type senderView struct {
	ID      string   `json:"id"`
	From    string   `json:"from"`
	Name    string   `json:"name"`
	Email   string   `json:"email"`
	ReplyTo []string `json:"reply_to"`
	Default bool     `json:"default"`
}

func viewSender(s identity.Sender, isDefault bool) senderView {
	from := s.Email
	if s.Name != "" {
		from = (&mail.Address{Name: s.Name, Address: s.Email}).String()
	}
	replyTo := s.ReplyTo
	if replyTo == nil {
		replyTo = []string{}
	}
	return senderView{ID: s.ID, From: from, Name: s.Name, Email: s.Email, ReplyTo: replyTo, Default: isDefault}
}
