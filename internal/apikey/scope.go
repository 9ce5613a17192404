package apikey

import (
	"fmt"
	"slices"
	"strings"
)

// Scope grants access to a group of API routes.
type Scope string

// The scopes of the spec.
const (
	EmailSend           Scope = "email:send"
	EmailSendBulk       Scope = "email:send_bulk"
	ContactsRead        Scope = "contacts:read"
	ContactsWrite       Scope = "contacts:write"
	EmailsRead          Scope = "emails:read"
	DomainsRead         Scope = "domains:read"
	EventsRead          Scope = "events:read"
	SuppressionsRead    Scope = "suppressions:read"
	SuppressionsWrite   Scope = "suppressions:write"
	DeliverabilityCheck Scope = "deliverability:check"
	MetricsRead         Scope = "metrics:read"
	CampaignsRead       Scope = "campaigns:read"
	CampaignsCancel     Scope = "campaigns:cancel"
	SegmentsWrite       Scope = "segments:write"
	AutomationsTrigger  Scope = "automations:trigger"
	// Sesame's own, beyond the spec's: stored templates, and reading
	// segments (an assistant's list_segments tool).
	TemplatesRead  Scope = "templates:read"
	TemplatesWrite Scope = "templates:write"
	SegmentsRead   Scope = "segments:read"
	// CampaignsSuggest drafts a campaign as a suggestion the owner must
	// approve (the MCP tool draft_campaign): the way an assistant, which
	// never holds email:send_bulk, proposes a campaign.
	CampaignsSuggest Scope = "campaigns:suggest"
)

// AllScopes lists every scope in the spec's order, then Sesame's own.
var AllScopes = []Scope{
	EmailSend, EmailSendBulk, ContactsRead, ContactsWrite, EmailsRead,
	DomainsRead, EventsRead, SuppressionsRead, SuppressionsWrite,
	DeliverabilityCheck, MetricsRead, CampaignsRead, CampaignsCancel,
	SegmentsWrite, AutomationsTrigger,
	TemplatesRead, TemplatesWrite, SegmentsRead, CampaignsSuggest,
}

// Deliberate reports whether s is granted only when named on purpose at key
// creation: no preset, no default and no legacy key carries it.
func (s Scope) Deliberate() bool { return s == EmailSendBulk || s == SegmentsWrite }

// Preset names a set of scopes offered at key creation.
type Preset string

const (
	PresetFull   Preset = "full"
	PresetSend   Preset = "send"
	PresetRead   Preset = "read"
	PresetCustom Preset = "custom"
)

// FullAccess is every scope except the deliberate-only ones. It is what the
// Full access preset grants and what a key stored without scopes (created
// before scopes existed) is treated as having.
var FullAccess = func() []Scope {
	var out []Scope
	for _, s := range AllScopes {
		if !s.Deliberate() {
			out = append(out, s)
		}
	}
	return out
}()

var presets = map[Preset][]Scope{
	PresetFull: FullAccess,
	PresetSend: {EmailSend},
	PresetRead: {
		EmailsRead, ContactsRead, DomainsRead, EventsRead,
		SuppressionsRead, MetricsRead, CampaignsRead, TemplatesRead, SegmentsRead,
	},
}

// Resolve returns the scopes of a key created with preset p. Only the custom
// preset takes scopes, and it needs at least one; every scope must be known.
func Resolve(p Preset, custom []string) ([]Scope, error) {
	if p == "" {
		p = PresetFull
	}
	if p != PresetCustom {
		scopes, ok := presets[p]
		if !ok {
			return nil, fmt.Errorf("unknown preset %q (full, send, read or custom)", p)
		}
		if len(custom) > 0 {
			return nil, fmt.Errorf("scopes are only taken with the custom preset")
		}
		return slices.Clone(scopes), nil
	}
	if len(custom) == 0 {
		return nil, fmt.Errorf("the custom preset needs at least one scope")
	}
	var out []Scope
	for _, raw := range custom {
		s := Scope(strings.TrimSpace(raw))
		if !slices.Contains(AllScopes, s) {
			return nil, fmt.Errorf("unknown scope %q", raw)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
