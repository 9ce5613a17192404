// Package owner is what a workspace owner does, and never an API key:
// workspaces, keys, domains and senders, held email, suppressions, webhook
// endpoints, automations. The console (cmd/sesame, signed in by AWS credentials) and
// the web dashboard call these methods; they parse input and render
// output, and the rules live here. Each concern declares the few store
// methods it uses, so any repository with those methods serves it.
package owner

import (
	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Service is every owner action, one concern per field.
type Service struct {
	Workspaces   *workspace.Service
	Keys         *apikey.Service
	Domains      *identity.Domains
	Senders      *identity.Senders
	Held         *Held
	Captured     *Captured
	Emails       *Emails
	Suppressions *suppression.Service
	Webhooks     *webhook.Service
	Contacts     *Contacts
	Segments     *segment.Service
	Approvals    *Approvals
	Automations  *automation.Service
	// AutomationRuns reads automation runs.
	AutomationRuns *automation.Runs
	// Owners sign in to the dashboard; Audit is the log of what they did.
	Owners *account.Owners
	Audit  *account.Audit
}
