package segment

import (
	"context"
	"fmt"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
)

// Contacts reads a workspace's contacts: every one, the shards in
// parallel, fn called from one goroutine at a time; an error from fn
// stops the read and is returned.
type Contacts interface {
	EachContact(ctx context.Context, workspaceID string, fn func(contact.Contact) error) error
}

// Suppressions reads a workspace's do-not-send list: fn is called with
// every address on it, in its stored form (suppression.Key), which is a
// contact's stored email form too: the two compare as they are.
type Suppressions interface {
	EachSuppressedAddress(ctx context.Context, workspaceID string, fn func(address string) error) error
}

// Resolver finds the recipients of a filter: the contacts that are
// subscribed, not on the do-not-send list and match it. It reads the
// do-not-send list once, then every contact once; nothing is written.
type Resolver struct {
	Contacts     Contacts
	Suppressions Suppressions
}

// Resolve calls fn with every recipient of filter in the workspace at
// time now, in no set order. An error from fn stops the read and is
// returned. It is how a count, a sample and (in the bulk issue) a
// draft's frozen recipient set are made.
func (r *Resolver) Resolve(ctx context.Context, workspaceID string, filter Filter, now time.Time, fn func(contact.Contact) error) error {
	suppressed := map[string]struct{}{}
	err := r.Suppressions.EachSuppressedAddress(ctx, workspaceID, func(address string) error {
		suppressed[address] = struct{}{}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the do-not-send list: %w", err)
	}
	return r.Contacts.EachContact(ctx, workspaceID, func(c contact.Contact) error {
		if !c.Subscribed || !filter.Match(c, now) {
			return nil
		}
		if _, ok := suppressed[c.Email]; ok {
			return nil
		}
		return fn(c)
	})
}

// Count is how many recipients filter has now.
func (r *Resolver) Count(ctx context.Context, workspaceID string, filter Filter, now time.Time) (int, error) {
	n := 0
	err := r.Resolve(ctx, workspaceID, filter, now, func(contact.Contact) error {
		n++
		return nil
	})
	return n, err
}

// Preview is a filter's recipients now: how many, and a few of them.
type Preview struct {
	Count  int
	Sample []contact.Contact
}

// Preview counts filter's recipients now and keeps the first size it
// reads as a sample.
func (r *Resolver) Preview(ctx context.Context, workspaceID string, filter Filter, now time.Time, size int) (Preview, error) {
	var p Preview
	err := r.Resolve(ctx, workspaceID, filter, now, func(c contact.Contact) error {
		p.Count++
		if len(p.Sample) < size {
			p.Sample = append(p.Sample, c)
		}
		return nil
	})
	return p, err
}
