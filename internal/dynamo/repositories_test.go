package dynamo_test

import (
	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo"
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
	_ httpapi.Authenticator     = (*dynamo.Keys)(nil)
	_ contact.Store             = (*dynamo.Contacts)(nil)
	_ contact.ImportStore       = (*dynamo.Contacts)(nil)
	_ email.Store               = (*dynamo.Emails)(nil)
	_ email.ClickStore          = (*dynamo.Clicks)(nil)
	_ event.Store               = (*dynamo.Events)(nil)
	_ metrics.Store             = (*dynamo.Metrics)(nil)
	_ identity.DomainStore      = (*dynamo.Domains)(nil)
	_ sending.Store             = (*dynamo.Sends)(nil)
	_ sending.HeldStore         = (*dynamo.Held)(nil)
	_ status.Store              = (*dynamo.Statuses)(nil)
	_ webhook.DispatchStore     = (*dynamo.Webhooks)(nil)
	_ webhook.EndpointLister    = (*dynamo.Webhooks)(nil)
	_ suppression.Store         = (*dynamo.Suppressions)(nil)
	_ sending.SuppressionReader = (*dynamo.Suppressions)(nil)
	_ engine.Store              = (*dynamo.ListSends)(nil)
	_ capacity.SlotStore        = (*dynamo.Pace)(nil)
	_ engine.ReputationStore    = (*dynamo.ListSends)(nil)
	_ engine.DueStore           = (*dynamo.ListSends)(nil)
	_ engine.Campaigns          = (*dynamo.Campaigns)(nil)
	_ segment.Store             = (*dynamo.Segments)(nil)
	_ segment.Suppressions      = (*dynamo.Suppressions)(nil)
	// The event route's store is three (internal/api/automations).
	_ automation.TriggerStore = struct {
		*dynamo.Contacts
		*dynamo.AutomationRuns
		*dynamo.Automations
	}{}
	_ account.OwnerStore         = (*dynamo.Owners)(nil)
	_ account.AuditStore         = (*dynamo.Owners)(nil)
	_ webhook.EmailAttemptReader = (*dynamo.Webhooks)(nil)
	_ signin.Store               = (*dynamo.SignIns)(nil)
	_ signin.Owners              = (*dynamo.Owners)(nil)
)
