package campaign

import (
	"context"
	"errors"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// An assistant never holds email:send_bulk; with campaigns:suggest it
// drafts a campaign as a suggestion: the same draft as POST /send/bulk
// (content rules, frozen subscribed recipients, account approval), marked
// as the assistant's, that sends nothing until the owner approves it in
// the dashboard. No API route approves a campaign, so no token can.

// Suggestion names who suggested a draft: the OAuth connection (its
// application and the owner who approved it), or the API key.
type Suggestion struct {
	GrantID    string
	ClientID   string
	ClientName string
	// ConnectedBy is the owner who approved the connection.
	ConnectedBy string
	// KeyID is the key that suggested it, when no connection did.
	KeyID string
}

// Label names the suggester as the dashboard shows it.
func (s Suggestion) Label() string {
	switch {
	case s.ClientName != "":
		return s.ClientName
	case s.ClientID != "":
		return s.ClientID
	}
	return "an API key"
}

// SuggestionOf is the mark of a suggestion made by p.
func SuggestionOf(p apikey.Principal) *Suggestion {
	if p.GrantID == "" {
		return &Suggestion{KeyID: p.KeyID}
	}
	return &Suggestion{GrantID: p.GrantID, ClientID: p.ClientID, ClientName: p.ClientName, ConnectedBy: p.GrantedBy}
}

// SuggestRequest is what an assistant suggests (the MCP tool
// draft_campaign); nil is an absent field. The text part is derived from
// the html, as for every campaign, so an owner's edit never leaves a
// stale one.
type SuggestRequest struct {
	SegmentID *string `json:"segment_id"`
	Subject   *string `json:"subject"`
	HTML      *string `json:"html"`
	// SenderID is a sender of the workspace; nil is its default sender.
	SenderID *string `json:"sender_id"`
}

// Validate checks the fields as POST /send/bulk does, then sender_id;
// it lowercases the ids.
func (r *SuggestRequest) Validate() error {
	d := r.draft()
	if err := d.Validate(); err != nil {
		return err
	}
	if r.SenderID != nil {
		id, err := ident.Parse(*r.SenderID)
		if err != nil || len(*r.SenderID) != 36 {
			return fail.Invalid("sender_id", "sender_id must be a sender's id, a UUID")
		}
		*r.SenderID = id.String()
	}
	return nil
}

func (r *SuggestRequest) draft() DraftRequest {
	return DraftRequest{SegmentID: r.SegmentID, Subject: r.Subject, HTML: r.HTML}
}

// SuggestResult is the draft result with what happens next, for the
// assistant to tell its user.
type SuggestResult struct {
	DraftResult
	Message string `json:"message"`
}

// suggestedMessage tells the assistant the draft waits for its owner.
const suggestedMessage = "suggested: the campaign waits for the workspace owner's approval in the dashboard (Approvals); nothing is sent until they approve it, and they may edit or discard it"

// Suggest drafts a campaign for p from a validated request, marked as
// p's suggestion. idemKey and reqHash are as Draft's.
func (d *Drafts) Suggest(ctx context.Context, p apikey.Principal, req SuggestRequest, idemKey, reqHash string) (SuggestResult, error) {
	senderID := ""
	if req.SenderID != nil {
		senderID = *req.SenderID
	}
	out, err := d.draft(ctx, p, req.draft(), idemKey, reqHash, senderID, SuggestionOf(p))
	if err != nil {
		return SuggestResult{}, err
	}
	return SuggestResult{DraftResult: out, Message: suggestedMessage}, nil
}

// SenderReader reads a sender of a workspace.
type SenderReader interface {
	GetSender(ctx context.Context, workspaceID, id string) (identity.Sender, error)
}

// sender is the draft's From: the workspace's sender id, or its default
// for "", refused as /send refuses it.
func (d *Drafts) sender(ctx context.Context, ws workspace.Workspace, id string) (identity.Sender, error) {
	if id == "" {
		return sending.DefaultSender(ws)
	}
	if d.Senders == nil {
		return identity.Sender{}, errors.New("campaign drafts: no sender reader")
	}
	s, err := d.Senders.GetSender(ctx, ws.ID, id)
	if errors.Is(err, identity.ErrSenderNotFound) {
		return identity.Sender{}, fail.Errorf(fail.KindNotFound, fail.SenderNotFound, "sender_id", "no sender with this id in the workspace")
	}
	if err != nil {
		return identity.Sender{}, err
	}
	if err := sending.CheckSender(ws, s); err != nil {
		return identity.Sender{}, err
	}
	return s, nil
}
