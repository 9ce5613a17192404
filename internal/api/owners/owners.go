// Package owners builds the owner façade (internal/owner: the entity
// services an owner uses) over the table and the AWS clients: the one
// place that says which repository serves which entity service, for the
// console (cmd/sesame) and the dashboard function alike.
package owners

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api/campaigns/tick"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
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
	Raw email.RawReader
	// Approver names who approves a campaign; Starter starts it (nil: the
	// engine's starter over the table and the sends queue, when
	// SendsQueueURL names one).
	Approver campaign.Approver
	Starter  campaign.Starter
	// PublicURL starts the stand-in unsubscribe links of an approval's
	// preview and of a shown campaign or automation email; the console
	// has none (listmail.PreviewLinks).
	PublicURL string
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
func Service(q Queues, repos repositories.Set, c Clients) *owner.Service {
	identities := &ses.Client{API: c.SES}
	var review sending.Enqueuer // none: held clear and deny refuse
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
	shown := listmail.Shown{Contacts: repos.Contacts, Workspaces: repos.Workspaces, PublicURL: c.PublicURL}
	return &owner.Service{
		Workspaces: &workspace.Service{Store: repos.Workspaces},
		Keys:       &apikey.Service{Store: repos.Keys},
		Domains:    &identity.Domains{Store: repos.Domains, Identities: identities},
		Senders:    &identity.Senders{Store: repos.Senders, Domains: repos.Domains},
		Held:       &sending.Held{Emails: repos.Emails, Store: repos.Held, Workspaces: repos.Workspaces, Review: review},
		Captured:   &email.Captured{Emails: repos.Emails, Raw: c.Raw},
		Emails: &email.Views{Store: emailReads{repos.Emails, repos.Clicks}, Kept: repos.Emails,
			Campaigns:   campaign.EmailContent{Campaigns: repos.Campaigns, Shown: shown},
			Automations: automation.EmailContent{Runs: repos.AutomationRuns, Versions: repos.Automations, Shown: shown},
		},
		Suppressions: &suppression.Service{Store: repos.Suppressions},
		Webhooks:     &webhook.Service{Endpoints: repos.Webhooks, Attempts: repos.Webhooks, EmailAttempts: repos.Webhooks},
		Contacts: &contact.Service{
			Store: repos.Contacts, Imports: repos.Contacts, ByEmail: repos.Contacts, Emails: repos.Emails,
		},
		Segments: &segment.Service{Store: repos.Segments, Resolver: &segment.Resolver{
			Contacts: repos.Contacts, Suppressions: repos.Suppressions,
		}},
		Approvals: &campaign.Approvals{
			Store: repos.Campaigns, Contacts: repos.Contacts, Approver: c.Approver, Starter: starter, Check: deliverability.Campaign,
			Workspaces: repos.Workspaces, PublicURL: c.PublicURL,
		},
		Owners:         &account.Owners{Store: repos.Owners},
		Audit:          &account.Audit{Store: repos.Owners},
		Automations:    &automation.Service{Store: repos.Automations, Senders: repos.Senders, Workspaces: repos.Workspaces},
		AutomationRuns: &automation.Runs{Store: repos.AutomationRuns},
	}
}

// emailReads are the emails and their clicks (email.ViewStore).
type emailReads struct {
	*emaildb.Emails
	*emaildb.Clicks
}
