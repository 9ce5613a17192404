package repositories_test

import (
	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo/accountdb"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/dynamo/campaigndb"
	"github.com/sesame-mail/sesame/internal/dynamo/capacitydb"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/eventdb"
	"github.com/sesame-mail/sesame/internal/dynamo/listmaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/metricsdb"
	"github.com/sesame-mail/sesame/internal/dynamo/segmentdb"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/dynamo/signindb"
	"github.com/sesame-mail/sesame/internal/dynamo/statusdb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/dynamo/webhookdb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/metrics"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/signin"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// Each repository has the interface its domain package declares.
var (
	_ httpapi.Authenticator     = (*apikeydb.Keys)(nil)
	_ contact.Store             = (*contactdb.Contacts)(nil)
	_ contact.ImportStore       = (*contactdb.Contacts)(nil)
	_ email.Store               = (*emaildb.Emails)(nil)
	_ email.ClickStore          = (*emaildb.Clicks)(nil)
	_ event.Store               = (*eventdb.Events)(nil)
	_ metrics.Store             = (*metricsdb.Metrics)(nil)
	_ identity.DomainStore      = (*workspacedb.Domains)(nil)
	_ sending.Store             = (*sendingdb.Sends)(nil)
	_ sending.HeldStore         = (*sendingdb.Held)(nil)
	_ status.Store              = (*statusdb.Statuses)(nil)
	_ webhook.DispatchStore     = (*webhookdb.Webhooks)(nil)
	_ webhook.EndpointLister    = (*webhookdb.Webhooks)(nil)
	_ suppression.Store         = (*suppressiondb.Suppressions)(nil)
	_ sending.SuppressionReader = (*suppressiondb.Suppressions)(nil)
	_ engine.Store              = (*listmaildb.ListSends)(nil)
	_ capacity.SlotStore        = (*capacitydb.Pace)(nil)
	_ engine.ReputationStore    = (*listmaildb.ListSends)(nil)
	_ engine.DueStore           = (*listmaildb.ListSends)(nil)
	_ engine.Campaigns          = (*campaigndb.Campaigns)(nil)
	_ segment.Store             = (*segmentdb.Segments)(nil)
	_ segment.Suppressions      = (*suppressiondb.Suppressions)(nil)
	// The event route's store is three (internal/api/automations).
	_ automation.TriggerStore = struct {
		*contactdb.Contacts
		*automationdb.AutomationRuns
		*automationdb.Automations
	}{}
	_ account.OwnerStore         = (*accountdb.Owners)(nil)
	_ account.AuditStore         = (*accountdb.Owners)(nil)
	_ webhook.EmailAttemptReader = (*webhookdb.Webhooks)(nil)
	_ signin.Store               = (*signindb.SignIns)(nil)
	_ signin.Owners              = (*accountdb.Owners)(nil)
)
