// Package dynamo is the repository layer over Sesame's single DynamoDB table:
// a shared table core (table.go), the key layout (layout.go) and one
// repository per entity, each in the file named after it.
package dynamo

// One repository per entity, each over the shared Table. A domain package
// declares the interface it needs; the repository of its entity has it.
type (
	// Workspaces are the tenants: settings, verified domains, default sender.
	Workspaces struct{ *Table }
	// Keys are API keys: the per-request lookup and rate limit, and the
	// console's key management.
	Keys struct{ *Table }
	// Domains are sending domains and their one-workspace claims.
	Domains struct{ *Table }
	// Senders are a workspace's sender addresses.
	Senders struct{ *Table }
	// Emails are the emails a workspace sent, read back by the API.
	Emails struct{ *Table }
	// Sends is the send path: the context read in one round trip, new
	// emails with their Idempotency-Key claim, and the undo of a failed
	// accept.
	Sends struct{ *Table }
	// Held are emails held for the security review and their templates'
	// verdicts.
	Held struct{ *Table }
	// Suppressions are a workspace's do-not-send addresses.
	Suppressions struct{ *Table }
	// Statuses apply the delivery pipeline's changes to emails, the feed,
	// clicks, suppressions and counters.
	Statuses struct{ *Table }
	// Events are the events feed.
	Events struct{ *Table }
	// Clicks are the recorded clicks of an email.
	Clicks struct{ *Table }
	// Metrics are the daily counters.
	Metrics struct{ *Table }
	// Webhooks are endpoints, their deliveries and delivery attempts.
	Webhooks struct{ *Table }
	// Contacts are a workspace's audience, each email claimed by one.
	Contacts struct{ *Table }
	// Segments are a workspace's named filters.
	Segments struct{ *Table }
	// Templates are a workspace's stored templates and their versions.
	Templates struct{ *Table }
	// Campaigns are bulk sends: drafts, their frozen recipients in chunks,
	// approvals and status changes.
	Campaigns struct{ *Table }
	// Automations are a workspace's automation definitions, their kept
	// versions and the listeners of each event name (the owner's side).
	Automations struct{ *Table }
	// AutomationRuns are the runs: started by events (event_key and live
	// run claims, the per-minute count), executed by the runner, woken by
	// the tick.
	AutomationRuns struct{ *Table }
	// Owners are who signs in to a workspace's dashboard, and the audit
	// log of what they did there.
	Owners struct{ *Table }
	// SignIns are the dashboard's sign-in links, sessions and rate counts.
	SignIns struct{ *Table }
	// OAuth are the authorization server's clients, codes, grants and
	// tokens.
	OAuth struct{ *Table }
)

// Repositories are every repository over one table, for processes (the dev
// server, the console, tests) that use many; a function wires only the
// ones its route needs.
type Repositories struct {
	Table        *Table
	Workspaces   *Workspaces
	Keys         *Keys
	Domains      *Domains
	Senders      *Senders
	Emails       *Emails
	Sends        *Sends
	Held         *Held
	Suppressions *Suppressions
	Statuses     *Statuses
	Events       *Events
	Clicks       *Clicks
	Metrics      *Metrics
	Webhooks     *Webhooks
	Contacts     *Contacts
	Segments     *Segments
	Templates    *Templates
	Campaigns    *Campaigns
	// ListSends is the side of the table that sends list mail.
	ListSends      *ListSends
	Automations    *Automations
	AutomationRuns *AutomationRuns
	Owners         *Owners
	SignIns        *SignIns
	OAuth          *OAuth
}

// NewRepositories builds every repository over t.
func NewRepositories(t *Table) Repositories {
	return Repositories{
		Table: t, Workspaces: &Workspaces{t}, Keys: &Keys{t}, Domains: &Domains{t}, Senders: &Senders{t},
		Emails: &Emails{t}, Sends: &Sends{t}, Held: &Held{t}, Suppressions: &Suppressions{t},
		Statuses: &Statuses{t}, Events: &Events{t}, Clicks: &Clicks{t}, Metrics: &Metrics{t}, Webhooks: &Webhooks{t},
		Contacts: &Contacts{t}, Segments: &Segments{t}, Templates: &Templates{t}, Campaigns: &Campaigns{t}, ListSends: &ListSends{t},
		Automations: &Automations{t}, AutomationRuns: &AutomationRuns{t},
		Owners: &Owners{t}, SignIns: &SignIns{t}, OAuth: &OAuth{t},
	}
}
