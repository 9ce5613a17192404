package sending

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/ttlcache"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// ContextTTL is how long a warm instance reuses a send's reads that may
// be late (docs/decisions.md, "Per-instance read cache"): a changed
// setting, sender or verdict reaches every instance within it.
const ContextTTL = time.Second

// UsageExactMargin is how close to its allowance a workspace's cached
// usage stops being trusted: closer, every send reads the counter
// exactly. A cached usage is at most ContextTTL old, so it can be short
// by the sends of that second: this margin covers a workspace sending
// 10,000 a second, the rate the layout is sized for.
const UsageExactMargin = 10000

// layoutTTL is how long an instance trusts what it learned about a
// workspace's layout (whether it has a cap; whether its do-not-send list
// has entries from before the shards): it only chooses what a send reads,
// never what it decides.
const layoutTTL = 15 * time.Minute

// SuppressionLayout tells whether a workspace may still have do-not-send
// entries in the partition before the shards (dynamo.Sends).
type SuppressionLayout interface {
	OldSuppressions(ctx context.Context, workspaceID string) (bool, error)
}

// ContextCache is one instance's memory of what sends read: the
// workspace record, a named sender, a decided template verdict (cleared
// or denied: a new or pending one is read every time, so the first
// emails of a layout are held as before), and the month's usage while it
// is far from the allowance. Never the do-not-send list or an
// Idempotency-Key: those are read by every send. Build one per instance
// (NewContextCache), in the wiring.
type ContextCache struct {
	workspaces *ttlcache.Cache[string, workspace.Workspace]
	senders    *ttlcache.Cache[[2]string, identity.Sender]
	verdicts   *ttlcache.Cache[[2]string, Template]
	usage      *ttlcache.Cache[[2]string, int] // by workspace and month
	capped     *ttlcache.Cache[string, bool]   // the workspace has an allowance
	noOld      *ttlcache.Cache[string, bool]   // no do-not-send entry before the shards
	layout     SuppressionLayout               // nil: the old partition is always read
}

// NewContextCache returns a cache keeping reads for ttl on the clock now
// (time.Now if nil); layout, if set, lets sends stop reading the
// do-not-send partition before the shards once a workspace has none
// there.
func NewContextCache(ttl time.Duration, now func() time.Time, layout SuppressionLayout) *ContextCache {
	return &ContextCache{
		workspaces: ttlcache.New[string, workspace.Workspace](ttl, 0, now),
		senders:    ttlcache.New[[2]string, identity.Sender](ttl, 0, now),
		verdicts:   ttlcache.New[[2]string, Template](ttl, 0, now),
		usage:      ttlcache.New[[2]string, int](ttl, 0, now),
		capped:     ttlcache.New[string, bool](layoutTTL, 0, now),
		noOld:      ttlcache.New[string, bool](layoutTTL, 0, now),
		layout:     layout,
	}
}

// usageSettled reports whether a usage of sent may decide a send although
// it is up to a ContextTTL old: no cap; the allowance used up (the
// counter only grows within a month, so a refusal stays right); or far
// enough from it that a second's sends cannot reach it.
func usageSettled(allowance, sent int) bool {
	return allowance <= 0 || sent >= allowance || allowance-sent > UsageExactMargin
}

// loadContext reads what a send decides on: the parts the cache holds
// from memory, the rest from the store in one round trip. A capped
// workspace's usage is read in that round trip when the instance knows
// the cap, else in a second one (a cold instance's first send).
func (s *Service) loadContext(ctx context.Context, q ContextQuery) (Context, error) {
	c := s.Cache
	var mem Context
	if c != nil {
		if ws, ok := c.workspaces.Get(q.WorkspaceID); ok {
			q.Known.Workspace, mem.Workspace = true, ws
		}
		if q.SenderID != "" {
			if snd, ok := c.senders.Get([2]string{q.WorkspaceID, q.SenderID}); ok {
				q.Known.Sender, mem.Sender = true, &snd
			}
		}
		if t, ok := c.verdicts.Get([2]string{q.WorkspaceID, q.Fingerprint}); ok {
			q.Known.Template, mem.Template = true, &t
		}
		q.NoOldSuppressions = c.noOldSuppressions(ctx, q.WorkspaceID)
	}
	usageKnown := false
	if q.Known.Workspace {
		if n, ok := c.usage.Get([2]string{q.WorkspaceID, q.Month}); ok && usageSettled(mem.Workspace.MonthlyAllowance, n) {
			usageKnown, mem.MonthlySent = true, n
		} else if mem.Workspace.MonthlyAllowance <= 0 {
			usageKnown = true
		}
	}
	if !usageKnown && c != nil {
		capped, _ := c.capped.Get(q.WorkspaceID)
		q.ReadUsage = capped || (q.Known.Workspace && mem.Workspace.MonthlyAllowance > 0)
	}
	got, err := s.Store.LoadContext(ctx, q)
	if err != nil {
		return Context{}, err
	}
	if q.Known.Workspace {
		got.Workspace = mem.Workspace
	}
	if q.Known.Sender {
		got.Sender = mem.Sender
	}
	if q.Known.Template {
		got.Template = mem.Template
	}
	switch {
	case usageKnown:
		got.MonthlySent = mem.MonthlySent
	case got.Workspace.MonthlyAllowance > 0 && !q.ReadUsage:
		if got.MonthlySent, err = s.Store.MonthlyUsage(ctx, q.WorkspaceID, q.Month); err != nil {
			return Context{}, err
		}
	}
	c.remember(q, got, !usageKnown)
	return got, nil
}

// remember keeps what a send read for the sends after it; usageRead says
// got's usage came from the store.
func (c *ContextCache) remember(q ContextQuery, got Context, usageRead bool) {
	if c == nil {
		return
	}
	if !q.Known.Workspace {
		c.workspaces.Put(q.WorkspaceID, got.Workspace)
	}
	c.capped.Put(q.WorkspaceID, got.Workspace.MonthlyAllowance > 0)
	if !q.Known.Sender && got.Sender != nil {
		c.senders.Put([2]string{q.WorkspaceID, q.SenderID}, *got.Sender)
	}
	if !q.Known.Template && got.Template != nil && (got.Template.State == TemplateCleared || got.Template.State == TemplateDenied) {
		c.verdicts.Put([2]string{q.WorkspaceID, q.Fingerprint}, *got.Template)
	}
	if usageRead && got.Workspace.MonthlyAllowance > 0 {
		c.usage.Put([2]string{q.WorkspaceID, q.Month}, got.MonthlySent)
	}
}

// noOldSuppressions reports whether the instance knows the workspace has
// no do-not-send entry before the shards; it asks once a layoutTTL. Not
// knowing (no layout, a fault) reads the old partition too: slower,
// never wrong.
func (c *ContextCache) noOldSuppressions(ctx context.Context, workspaceID string) bool {
	if c.layout == nil {
		return false
	}
	if none, ok := c.noOld.Get(workspaceID); ok {
		return none
	}
	old, err := c.layout.OldSuppressions(ctx, workspaceID)
	if err != nil {
		return false
	}
	c.noOld.Put(workspaceID, !old)
	return !old
}
