// Package contextcache keeps, per Lambda instance, what sends read that
// may be a second late (docs/decisions.md, "Per-instance read cache"): a
// sending.Store that answers those parts of a send's context from memory.
package contextcache

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ttlcache"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// TTL is how long a warm instance reuses a send's reads that may be
// late: a changed setting, sender or verdict reaches every instance
// within it.
const TTL = time.Second

// UsageExactMargin is how close to its allowance a workspace's cached
// usage stops being trusted: closer, every send reads the counter
// exactly. A cached usage is at most TTL old, so it can be short by the
// sends of that second: this margin covers a workspace sending 10,000 a
// second, the rate the layout is sized for.
const UsageExactMargin = 10000

// layoutTTL is how long an instance trusts what it learned about a
// workspace's layout (whether it has a cap; whether its do-not-send list
// has entries from before the shards): it only chooses what a send reads,
// never what it decides.
const layoutTTL = 15 * time.Minute

// A layout's reference content of a day never changes once written
// (email.ContentRef), so an instance keeps it the day; at most
// maxContentRefs of them (32 KB each at most).
const (
	contentRefTTL  = 24 * time.Hour
	maxContentRefs = 64
)

// SuppressionLayout tells whether a workspace may still have do-not-send
// entries in the partition before the shards (sendingdb.Sends).
type SuppressionLayout interface {
	OldSuppressions(ctx context.Context, workspaceID string) (bool, error)
}

// Store is a sending.Store that remembers, for a TTL, the workspace
// record, a named sender, a decided template verdict (cleared or denied:
// a new or pending one is read every time, so the first emails of a
// layout are held as before) and the month's usage while it is far from
// the allowance; and a layout's reference content of the day once it
// exists (it never changes). Never the do-not-send list or an Idempotency-Key: every
// send reads those. Build one per instance (New), in the wiring.
type Store struct {
	sending.Store
	workspaces *ttlcache.Cache[string, workspace.Workspace]
	senders    *ttlcache.Cache[[2]string, identity.Sender]
	verdicts   *ttlcache.Cache[[2]string, sending.Template]
	usage      *ttlcache.Cache[[2]string, int] // by workspace and month
	capped     *ttlcache.Cache[string, bool]   // the workspace has an allowance
	noOld      *ttlcache.Cache[string, bool]   // no do-not-send entry before the shards
	layout     SuppressionLayout               // nil: the old partition is always read
	// by workspace, layout and day
	refs *ttlcache.Cache[[3]string, email.ContentRef]
}

// New returns next remembering reads for ttl on the clock now (time.Now
// if nil); layout, if set, lets sends stop reading the do-not-send
// partition before the shards once a workspace has none there.
func New(next sending.Store, ttl time.Duration, now func() time.Time, layout SuppressionLayout) *Store {
	return &Store{
		Store:      next,
		workspaces: ttlcache.New[string, workspace.Workspace](ttl, 0, now),
		senders:    ttlcache.New[[2]string, identity.Sender](ttl, 0, now),
		verdicts:   ttlcache.New[[2]string, sending.Template](ttl, 0, now),
		refs:       ttlcache.New[[3]string, email.ContentRef](refTTL(ttl), maxContentRefs, now),
		usage:      ttlcache.New[[2]string, int](ttl, 0, now),
		capped:     ttlcache.New[string, bool](layoutTTL, 0, now),
		noOld:      ttlcache.New[string, bool](layoutTTL, 0, now),
		layout:     layout,
	}
}

// refTTL keeps references the day, unless the cache is off (ttl ≤ 0).
func refTTL(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return 0
	}
	return contentRefTTL
}

// usageSettled reports whether a usage of sent may decide a send although
// it is up to a TTL old: no cap; the allowance used up (the counter only
// grows within a month, so a refusal stays right); or far enough from it
// that a second's sends cannot reach it.
func usageSettled(allowance, sent int) bool {
	return allowance <= 0 || sent >= allowance || allowance-sent > UsageExactMargin
}

// LoadContext answers the parts it remembers and reads the rest in one
// round trip; a capped workspace's usage is read in it when the instance
// knows the cap (else sending.LoadContext reads it apart, through
// MonthlyUsage, which remembers it too).
func (s *Store) LoadContext(ctx context.Context, q sending.ContextQuery) (sending.Context, error) {
	var mem sending.Context
	if ws, ok := s.workspaces.Get(q.WorkspaceID); ok {
		q.Known.Workspace, mem.Workspace = true, ws
	}
	if q.SenderID != "" {
		if snd, ok := s.senders.Get([2]string{q.WorkspaceID, q.SenderID}); ok {
			q.Known.Sender, mem.Sender = true, &snd
		}
	}
	if t, ok := s.verdicts.Get([2]string{q.WorkspaceID, q.Fingerprint}); ok {
		q.Known.Template, mem.Template = true, &t
	}
	refKey := [3]string{q.WorkspaceID, q.Fingerprint, q.Day}
	if r, ok := s.refs.Get(refKey); ok && q.Day != "" {
		q.Known.ContentRef, mem.ContentRef = true, r
	}
	q.NoOldSuppressions = s.noOldSuppressions(ctx, q.WorkspaceID)
	if q.Known.Workspace {
		if n, ok := s.usage.Get([2]string{q.WorkspaceID, q.Month}); ok && usageSettled(mem.Workspace.MonthlyAllowance, n) {
			mem.MonthlySent, mem.UsageKnown = n, true
		} else if mem.Workspace.MonthlyAllowance <= 0 {
			mem.UsageKnown = true // no cap: nothing to read
		}
	}
	if !mem.UsageKnown {
		capped, _ := s.capped.Get(q.WorkspaceID)
		q.ReadUsage = capped || (q.Known.Workspace && mem.Workspace.MonthlyAllowance > 0)
	}
	got, err := s.Store.LoadContext(ctx, q)
	if err != nil {
		return sending.Context{}, err
	}
	if q.Known.Workspace {
		got.Workspace = mem.Workspace
	} else {
		s.workspaces.Put(q.WorkspaceID, got.Workspace)
	}
	s.capped.Put(q.WorkspaceID, got.Workspace.MonthlyAllowance > 0)
	if q.Known.Sender {
		got.Sender = mem.Sender
	} else if got.Sender != nil {
		s.senders.Put([2]string{q.WorkspaceID, q.SenderID}, *got.Sender)
	}
	if q.Known.Template {
		got.Template = mem.Template
	} else if t := got.Template; t != nil && (t.State == sending.TemplateCleared || t.State == sending.TemplateDenied) {
		s.verdicts.Put([2]string{q.WorkspaceID, q.Fingerprint}, *t)
	}
	if q.Known.ContentRef {
		got.ContentRef = mem.ContentRef
	} else if got.ContentRef.Stored { // written: it never changes
		s.refs.Put(refKey, got.ContentRef)
	}
	switch {
	case mem.UsageKnown:
		got.MonthlySent, got.UsageKnown = mem.MonthlySent, true
	case got.UsageKnown:
		s.usage.Put([2]string{q.WorkspaceID, q.Month}, got.MonthlySent)
	}
	return got, nil
}

// MonthlyUsage reads the month's usage exactly and remembers it.
func (s *Store) MonthlyUsage(ctx context.Context, workspaceID, month string) (int, error) {
	n, err := s.Store.MonthlyUsage(ctx, workspaceID, month)
	if err != nil {
		return 0, err
	}
	s.usage.Put([2]string{workspaceID, month}, n)
	s.capped.Put(workspaceID, true)
	return n, nil
}

// noOldSuppressions reports whether the instance knows the workspace has
// no do-not-send entry before the shards; it asks once a layoutTTL. Not
// knowing (no layout, a fault) reads the old partition too: slower,
// never wrong.
func (s *Store) noOldSuppressions(ctx context.Context, workspaceID string) bool {
	if s.layout == nil {
		return false
	}
	if none, ok := s.noOld.Get(workspaceID); ok {
		return none
	}
	old, err := s.layout.OldSuppressions(ctx, workspaceID)
	if err != nil {
		return false
	}
	s.noOld.Put(workspaceID, !old)
	return !old
}
