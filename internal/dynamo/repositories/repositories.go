// Package repositories gathers every storage package's repositories over
// one table, for the processes that use many (the dev server, the
// console, tests); a route function wires only the repositories its route
// needs, from their own packages, so it links only those.
package repositories

import (
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/accountdb"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/dynamo/campaigndb"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/emailtemplatedb"
	"github.com/sesame-mail/sesame/internal/dynamo/eventdb"
	"github.com/sesame-mail/sesame/internal/dynamo/listmaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/metricsdb"
	"github.com/sesame-mail/sesame/internal/dynamo/oauthdb"
	"github.com/sesame-mail/sesame/internal/dynamo/segmentdb"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/dynamo/signindb"
	"github.com/sesame-mail/sesame/internal/dynamo/statusdb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/dynamo/webhookdb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
)

// Set is every repository over one table.
type Set struct {
	Table        *dynamo.Table
	Workspaces   *workspacedb.Workspaces
	Keys         *apikeydb.Keys
	Domains      *workspacedb.Domains
	Senders      *workspacedb.Senders
	Emails       *emaildb.Emails
	Sends        *sendingdb.Sends
	Held         *sendingdb.Held
	Suppressions *suppressiondb.Suppressions
	Statuses     *statusdb.Statuses
	Events       *eventdb.Events
	Clicks       *emaildb.Clicks
	Metrics      *metricsdb.Metrics
	Webhooks     *webhookdb.Webhooks
	Contacts     *contactdb.Contacts
	Segments     *segmentdb.Segments
	Templates    *emailtemplatedb.Templates
	Campaigns    *campaigndb.Campaigns
	// ListSends is the side of the table that sends list mail.
	ListSends      *listmaildb.ListSends
	Automations    *automationdb.Automations
	AutomationRuns *automationdb.AutomationRuns
	Owners         *accountdb.Owners
	SignIns        *signindb.SignIns
	OAuth          *oauthdb.OAuth
}

// New builds every repository over t.
func New(t *dynamo.Table) Set {
	return Set{
		Table: t, Workspaces: &workspacedb.Workspaces{Table: t}, Keys: &apikeydb.Keys{Table: t},
		Domains: &workspacedb.Domains{Table: t}, Senders: &workspacedb.Senders{Table: t},
		Emails: &emaildb.Emails{Table: t}, Sends: &sendingdb.Sends{Table: t}, Held: &sendingdb.Held{Table: t},
		Suppressions: &suppressiondb.Suppressions{Table: t}, Statuses: &statusdb.Statuses{Table: t},
		Events: &eventdb.Events{Table: t}, Clicks: &emaildb.Clicks{Table: t}, Metrics: &metricsdb.Metrics{Table: t},
		Webhooks: &webhookdb.Webhooks{Table: t}, Contacts: &contactdb.Contacts{Table: t},
		Segments: &segmentdb.Segments{Table: t}, Templates: &emailtemplatedb.Templates{Table: t},
		Campaigns: &campaigndb.Campaigns{Table: t}, ListSends: &listmaildb.ListSends{Table: t},
		Automations: &automationdb.Automations{Table: t}, AutomationRuns: &automationdb.AutomationRuns{Table: t},
		Owners: &accountdb.Owners{Table: t}, SignIns: &signindb.SignIns{Table: t}, OAuth: &oauthdb.OAuth{Table: t},
	}
}
