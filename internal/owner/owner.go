// Package owner gathers the entity services a workspace owner uses, for
// the console (cmd/sesame, signed in by AWS credentials) and the web
// dashboard: a façade of fields and nothing else. Every rule lives in its
// entity's package and its one service, which the API handlers, the
// consumers and the MCP tools use too; a fitness test
// (internal/api/entities_test.go) keeps this package free of functions.
package owner

import (
	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Service is every owner action, one entity service (or one concern of
// an entity) per field.
type Service struct {
	Workspaces *workspace.Service
	Keys       *apikey.Service
	Domains    *identity.Domains
	Senders    *identity.Senders
	// Held is the security review's held email (sending's: its verdict
	// is carried out by the Reviewer).
	Held *sending.Held
	// Emails and Captured read the workspace's emails; Webhooks also
	// finds an email's deliveries.
	Emails       *email.Views
	Captured     *email.Captured
	Suppressions *suppression.Service
	Webhooks     *webhook.Service
	Contacts     *contact.Service
	Segments     *segment.Service
	// Approvals are the owner's side of campaigns: drafts to approve,
	// preview, edit, discard, cancel, resume.
	Approvals   *campaign.Approvals
	Automations *automation.Service
	// AutomationRuns reads automation runs.
	AutomationRuns *automation.Runs
	// Owners sign in to the dashboard; Audit is the log of what they did.
	Owners *account.Owners
	Audit  *account.Audit
}
