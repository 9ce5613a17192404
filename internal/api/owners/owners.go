// Package owners builds the owner service (internal/owner) over the
// table and the AWS clients: the one place that says which repository
// serves which owner concern, for the console (cmd/sesame) and the
// dashboard function alike.
package owners

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api/campaigns/tick"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Clients are what the owner service reaches besides the table.
type Clients struct {
	// SES manages identities (the local stack's are kept by LocalSES).
	SES ses.API
	// SQS takes held verdicts (review queue) and started campaigns
	// (sends queue).
	SQS SQS
	// Raw reads captured messages; nil on a deployed stack.
	Raw owner.RawReader
	// Approver names who approves a campaign; Starter starts it (nil: the
	// engine's starter over the table and the sends queue, when
	// SendsQueueURL names one).
	Approver owner.Approver
	Starter  campaign.Starter
}

// SQS is what the owner service sends to SQS.
type SQS interface {
	queue.SendAPI
	queue.BatchSendAPI
}

// Queues are the queues the owner service sends to; an empty URL turns
// its action off (held clear and deny refuse; approvals are recorded but
// not started).
type Queues struct {
	ReviewQueueURL string
	SendsQueueURL  string
}

// Service is the owner service over repos and c.
func Service(q Queues, repos dynamo.Repositories, c Clients) *owner.Service {
	identities := &ses.Client{API: c.SES}
	var review owner.ReviewQueue // none: held clear and deny refuse
	if q.ReviewQueueURL != "" {
		review = &queue.Publisher{SQS: c.SQS, QueueURL: q.ReviewQueueURL}
	}
	starter := c.Starter
	if starter == nil {
		starter = campaign.NoEngine{}
		if q.SendsQueueURL != "" {
			starter = tick.NewStarter(repos.Table, repos.Campaigns, config.SendsQueue{SendsQueueURL: q.SendsQueueURL},
				c.SQS, slog.New(slog.DiscardHandler))
		}
	}
	return &owner.Service{
		Workspaces: &workspace.Service{Store: repos.Workspaces},
		Keys:       &apikey.Service{Store: repos.Keys},
		Domains:    &identity.Domains{Store: repos.Domains, Identities: identities},
		Senders:    &identity.Senders{Store: repos.Senders, Domains: repos.Domains},
		Held:       &owner.Held{Emails: repos.Emails, Store: repos.Held, Templates: repos.Held, Workspaces: repos.Workspaces, Review: review},
		Captured:   &owner.Captured{Emails: repos.Emails, Raw: c.Raw},
		Emails: &owner.Emails{Store: emailReads{repos.Emails, repos.Clicks}, Webhooks: repos.Webhooks, Sources: owner.ContentSources{
			Kept: repos.Emails, Campaigns: repos.Campaigns, Runs: repos.AutomationRuns, Versions: repos.Automations,
			Contacts: repos.Contacts, Workspaces: repos.Workspaces,
		}},
		Suppressions: &suppression.Service{Store: repos.Suppressions},
		Webhooks:     &webhook.Service{Endpoints: repos.Webhooks, Attempts: repos.Webhooks},
		Contacts:     &owner.Contacts{Store: repos.Contacts, Emails: repos.Emails},
		Segments: &segment.Service{Store: repos.Segments, Resolver: &segment.Resolver{
			Contacts: repos.Contacts, Suppressions: repos.Suppressions,
		}},
		Approvals: &owner.Approvals{
			Store: repos.Campaigns, Contacts: repos.Contacts, Approver: c.Approver, Starter: starter, Check: deliverability.Campaign,
			Workspaces: repos.Workspaces,
		},
		Owners:         &account.Owners{Store: repos.Owners},
		Audit:          &account.Audit{Store: repos.Owners},
		Automations:    &automation.Service{Store: repos.Automations, Senders: repos.Senders, Workspaces: repos.Workspaces},
		AutomationRuns: &automation.Runs{Store: repos.AutomationRuns},
	}
}

// emailReads are the emails and their clicks (owner.EmailStore).
type emailReads struct {
	*dynamo.Emails
	*dynamo.Clicks
}
