package mcpserver

import (
	"github.com/sesame-mail/sesame/internal/routes"
)

// tool is an MCP tool served by one /api/v1 route: its scope, rules,
// limits and errors are the route's.
type tool struct {
	name, title, description string
	route                    routes.Route
	// path are the arguments that fill the route's {name} parameters;
	// query the ones sent as query parameters.
	path, query []string
	// body is the request body's schema (a component of the OpenAPI
	// document): the whole arguments, less path and query ones, are the
	// body. "" for a route without body.
	body string
	// idempotent tools take an idempotency_key argument, sent as the
	// Idempotency-Key header.
	idempotent bool
	readOnly   bool
}

// idempotencyArg is the argument sent as the Idempotency-Key header.
const idempotencyArg = "idempotency_key"

// tools are the agent's tools. Nothing here sends a campaign, creates a
// segment or touches the do-not-send list: a connection is never granted
// email:send_bulk or segments:write, and the tools that would need them
// do not exist. draft_campaign (draft.go) only suggests a campaign.
var tools = []tool{
	{name: "send_email", title: "Send an email", route: routes.Send, body: "SendRequest", idempotent: true,
		description: "Send one transactional email (POST /api/v1/send). Needs email:send. The answer is the email's id and status; an email held for review says so, with the reason."},
	{name: "send_batch", title: "Send a batch of emails", route: routes.SendBatch, body: "BatchRequest", idempotent: true,
		description: "Send up to the API's batch limit of transactional emails at once (POST /api/v1/send/batch); each item succeeds or fails on its own. Needs email:send."},
	{name: "get_email", title: "Get an email", route: routes.GetEmail, path: []string{"id"}, readOnly: true,
		description: "An email's delivery status, recipients and events (GET /api/v1/emails/{id}). Needs emails:read."},
	{name: "list_emails", title: "List emails", route: routes.ListEmails, query: []string{"limit", "cursor", "status", "type", "environment"}, readOnly: true,
		description: "Emails, newest first, filtered by status, type or environment (GET /api/v1/emails); pass next_cursor back as cursor for the next page. Needs emails:read."},
	{name: "list_clicks", title: "List an email's clicks", route: routes.Clicks, path: []string{"id"}, readOnly: true,
		description: "The tracked link clicks of one email (GET /api/v1/emails/{id}/clicks). Needs emails:read."},
	{name: "list_events", title: "Read the events feed", route: routes.Events, query: []string{"limit", "cursor"}, readOnly: true,
		description: "Delivery and engagement events of the workspace, newest first (GET /api/v1/events). Needs events:read."},
	{name: "create_contact", title: "Create a contact", route: routes.CreateContact, body: "ContactCreate",
		description: "Add a contact to the audience (POST /api/v1/contacts). Needs contacts:write."},
	{name: "update_contact", title: "Update a contact", route: routes.UpdateContact, path: []string{"id"}, body: "ContactUpdate",
		description: "Change a contact's fields, tags or subscription (PATCH /api/v1/contacts/{id}); give id and the fields to change. Needs contacts:write."},
	{name: "find_contacts", title: "Find contacts", route: routes.ListContacts, query: []string{"email", "tag", "subscribed", "limit", "cursor"}, readOnly: true,
		description: "Find contacts by email, tag or subscription (GET /api/v1/contacts). Needs contacts:read."},
	{name: "report_automation_event", title: "Report an automation event", route: routes.AutomationEvents, body: "AutomationEventRequest",
		description: "Report an event for a contact, which starts the automations listening for it (POST /api/v1/automations/events). Needs automations:trigger."},
	{name: "check_deliverability", title: "Check deliverability", route: routes.CheckDeliverability, body: "DeliverabilityRequest", readOnly: true,
		description: "Score an email's content and sender for deliverability before sending it (POST /api/v1/deliverability/check). Needs deliverability:check."},
	{name: "list_campaigns", title: "List campaigns", route: routes.ListCampaigns, query: []string{"status", "limit", "cursor"}, readOnly: true,
		description: "Bulk campaigns and their status, newest first (GET /api/v1/campaigns); read only: an agent never starts one. Needs campaigns:read."},
	{name: "list_segments", title: "List segments", route: segmentsRoute, readOnly: true,
		description: "The workspace's segments (named filters over contacts) with their filter and the recipient count when created, oldest first; read only: an agent never creates one. Needs segments:read."},
}
