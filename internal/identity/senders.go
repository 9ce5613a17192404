package identity

import (
	"context"
	"errors"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// SenderStore keeps a workspace's senders; a default sender is copied onto
// the workspace, which every send reads.
type SenderStore interface {
	AddSender(ctx context.Context, workspaceID string, sender Sender, makeDefault bool) (Sender, error)
	ListSenders(ctx context.Context, workspaceID string) ([]Sender, error)
	// DefaultSender is the one the workspace sends from when a send names
	// none; nil when there is none.
	DefaultSender(ctx context.Context, workspaceID string) (*Sender, error)
}

// DomainReader reads a workspace's domain by name.
type DomainReader interface {
	GetDomain(ctx context.Context, workspaceID, name string) (Domain, error)
}

// Senders manages a workspace's from addresses.
type Senders struct {
	Store   SenderStore
	Domains DomainReader
}

// SenderRequest asks for a sender.
type SenderRequest struct {
	WorkspaceID string
	From        string   // e.g. "Acme <hello@acme.com>"
	ReplyTo     []string // default reply-to addresses
	Default     bool     // make it the workspace's default sender
}

// SenderList is a workspace's senders and which one is the default.
type SenderList struct {
	Senders   []Sender
	DefaultID string // "" when there is no default
}

// Add adds a sender on one of the workspace's domains (any status: it
// sends once the domain is verified).
func (s *Senders) Add(ctx context.Context, req SenderRequest) (Sender, error) {
	if err := ident.RequireWorkspace(req.WorkspaceID); err != nil {
		return Sender{}, err
	}
	from, err := compose.ParseSender(req.From)
	if err != nil {
		return Sender{}, fail.Refused("from", err)
	}
	for _, r := range req.ReplyTo {
		if _, err := compose.ParseSender(r); err != nil {
			return Sender{}, fail.Invalid("reply-to", "reply-to %q: %s", r, err)
		}
	}
	domain := DomainOf(from.Address)
	if _, err := s.Domains.GetDomain(ctx, req.WorkspaceID, domain); errors.Is(err, ErrDomainNotFound) {
		foreign := fail.Invalid("from", "from: %s is not a domain of this workspace; add the domain first", domain)
		foreign.Err = err
		return Sender{}, foreign
	} else if err != nil {
		return Sender{}, err
	}
	return s.Store.AddSender(ctx, req.WorkspaceID, Sender{Name: from.Name, Email: from.Address, ReplyTo: req.ReplyTo}, req.Default)
}

// List returns the workspace's senders; workspace.ErrNotFound for an
// absent workspace.
func (s *Senders) List(ctx context.Context, workspaceID string) (SenderList, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return SenderList{}, err
	}
	senders, err := s.Store.ListSenders(ctx, workspaceID)
	if err != nil {
		return SenderList{}, err
	}
	def, err := s.Store.DefaultSender(ctx, workspaceID)
	if err != nil {
		return SenderList{}, err
	}
	list := SenderList{Senders: senders}
	if list.Senders == nil {
		list.Senders = []Sender{}
	}
	if def != nil {
		list.DefaultID = def.ID
	}
	return list, nil
}
