package identity

import (
	"context"
	"errors"
)

// Sendable returns the workspace's senders a send may use now, those on
// a verified domain (a send from any other is refused), and which of
// them is the default ("" when the default is not among them).
func (s *Senders) Sendable(ctx context.Context, workspaceID string) (SenderList, error) {
	all, err := s.List(ctx, workspaceID)
	if err != nil {
		return SenderList{}, err
	}
	out := SenderList{Senders: []Sender{}}
	verified := map[string]bool{} // by domain: one read each
	for _, snd := range all.Senders {
		name := DomainOf(snd.Email)
		ok, seen := verified[name]
		if !seen {
			d, err := s.Domains.GetDomain(ctx, workspaceID, name)
			if err != nil && !errors.Is(err, ErrDomainNotFound) {
				return SenderList{}, err
			}
			ok = err == nil && d.Status == DomainVerified
			verified[name] = ok
		}
		if !ok {
			continue
		}
		out.Senders = append(out.Senders, snd)
		if snd.ID == all.DefaultID {
			out.DefaultID = snd.ID
		}
	}
	return out, nil
}
