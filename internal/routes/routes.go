// Package routes lists the public API routes, the scope each needs and the
// Lambda function that serves it, and the pages outside /api/v1 that answer
// recipients. The dev server mounts them on one mux; the CDK stack creates
// one API Gateway method per entry and one function per function name.
package routes

import (
	"slices"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/queue/queues"
)

// Route is one method and path of /api/v1, served by functions/<Function>.
// Path uses {name} parameters, valid for both http.ServeMux and API Gateway.
type Route struct {
	Function string
	Method   string
	Path     string
	Scope    apikey.Scope
	// Public routes are served without an API key and have no Scope: they
	// answer nothing of a workspace (the API document).
	Public bool
}

// The routes of /api/v1.
var (
	ListEmails = Route{Function: "list-emails", Method: "GET", Path: "/api/v1/emails", Scope: apikey.EmailsRead}
	GetEmail   = Route{Function: "get-email", Method: "GET", Path: "/api/v1/emails/{id}", Scope: apikey.EmailsRead}
	Send       = Route{Function: "send", Method: "POST", Path: "/api/v1/send", Scope: apikey.EmailSend}
	SendBatch  = Route{Function: "send-batch", Method: "POST", Path: "/api/v1/send/batch", Scope: apikey.EmailSend}
	Domains    = Route{Function: "list-domains", Method: "GET", Path: "/api/v1/domains", Scope: apikey.DomainsRead}
	Clicks     = Route{Function: "list-clicks", Method: "GET", Path: "/api/v1/emails/{id}/clicks", Scope: apikey.EmailsRead}
	// CancelEmail cancels a scheduled email: the scope that schedules it.
	CancelEmail = Route{Function: "cancel-email", Method: "POST", Path: "/api/v1/emails/{id}/cancel", Scope: apikey.EmailSend}
	Events      = Route{Function: "list-events", Method: "GET", Path: "/api/v1/events", Scope: apikey.EventsRead}
	Metrics     = Route{Function: "get-metrics", Method: "GET", Path: "/api/v1/metrics", Scope: apikey.MetricsRead}
	OpenAPI     = Route{Function: "get-openapi", Method: "GET", Path: "/api/v1/openapi.json", Public: true}

	CreateContact       = Route{Function: "create-contact", Method: "POST", Path: "/api/v1/contacts", Scope: apikey.ContactsWrite}
	ListContacts        = Route{Function: "list-contacts", Method: "GET", Path: "/api/v1/contacts", Scope: apikey.ContactsRead}
	GetContact          = Route{Function: "get-contact", Method: "GET", Path: "/api/v1/contacts/{id}", Scope: apikey.ContactsRead}
	UpdateContact       = Route{Function: "update-contact", Method: "PATCH", Path: "/api/v1/contacts/{id}", Scope: apikey.ContactsWrite}
	DeleteContact       = Route{Function: "delete-contact", Method: "DELETE", Path: "/api/v1/contacts/{id}", Scope: apikey.ContactsWrite}
	ListSuppressions    = Route{Function: "list-suppressions", Method: "GET", Path: "/api/v1/suppressions", Scope: apikey.SuppressionsRead}
	AddSuppressions     = Route{Function: "add-suppressions", Method: "POST", Path: "/api/v1/suppressions", Scope: apikey.SuppressionsWrite}
	DeleteSuppression   = Route{Function: "delete-suppression", Method: "DELETE", Path: "/api/v1/suppressions/{email}", Scope: apikey.SuppressionsWrite}
	CreateSegment       = Route{Function: "create-segment", Method: "POST", Path: "/api/v1/segments", Scope: apikey.SegmentsWrite}
	CheckDeliverability = Route{Function: "check-deliverability", Method: "POST", Path: "/api/v1/deliverability/check", Scope: apikey.DeliverabilityCheck}

	SendBulk       = Route{Function: "send-bulk", Method: "POST", Path: "/api/v1/send/bulk", Scope: apikey.EmailSendBulk}
	ListCampaigns  = Route{Function: "list-campaigns", Method: "GET", Path: "/api/v1/campaigns", Scope: apikey.CampaignsRead}
	GetCampaign    = Route{Function: "get-campaign", Method: "GET", Path: "/api/v1/campaigns/{id}", Scope: apikey.CampaignsRead}
	CancelCampaign = Route{Function: "cancel-campaign", Method: "POST", Path: "/api/v1/campaigns/{id}/cancel", Scope: apikey.CampaignsCancel}

	AutomationEvents = Route{Function: "automation-events", Method: "POST", Path: "/api/v1/automations/events", Scope: apikey.AutomationsTrigger}

	CreateTemplate = Route{Function: "create-template", Method: "POST", Path: "/api/v1/templates", Scope: apikey.TemplatesWrite}
	ListTemplates  = Route{Function: "list-templates", Method: "GET", Path: "/api/v1/templates", Scope: apikey.TemplatesRead}
	GetTemplate    = Route{Function: "get-template", Method: "GET", Path: "/api/v1/templates/{id}", Scope: apikey.TemplatesRead}
	UpdateTemplate = Route{Function: "update-template", Method: "PATCH", Path: "/api/v1/templates/{id}", Scope: apikey.TemplatesWrite}
	DeleteTemplate = Route{Function: "delete-template", Method: "DELETE", Path: "/api/v1/templates/{id}", Scope: apikey.TemplatesWrite}
)

// API is every implemented /api/v1 route.
var API = []Route{
	ListEmails, GetEmail, Send, SendBatch, Domains, Clicks, Events, Metrics, OpenAPI, CancelEmail,
	CreateContact, ListContacts, GetContact, UpdateContact, DeleteContact,
	ListSuppressions, AddSuppressions, DeleteSuppression,
	CreateSegment,
	CheckDeliverability,
	SendBulk, ListCampaigns, GetCampaign, CancelCampaign,
	AutomationEvents,
	CreateTemplate, ListTemplates, GetTemplate, UpdateTemplate, DeleteTemplate,
}

// Pages are the routes outside /api/v1 that answer an email's recipient
// (a person's browser, a mailbox provider's RFC 8058 one-click POST), not
// an API client: HTML, no API key, a signed token in the path. Both
// methods of /unsubscribe/{token} are served by one function.
var (
	Unsubscribe         = Route{Function: "unsubscribe", Method: "GET", Path: "/unsubscribe/{token}", Public: true}
	UnsubscribeOneClick = Route{Function: "unsubscribe", Method: "POST", Path: "/unsubscribe/{token}", Public: true}
)

// Pages is every implemented page route.
var Pages = []Route{Unsubscribe, UnsubscribeOneClick}

// Site is a function that serves every method of every path under Prefix
// with a router of its own (its pages are HTML for people, not API
// routes): the stack mounts ANY Prefix and ANY Prefix/{proxy+} on it.
type Site struct {
	Function string
	Prefix   string
	// Also are exact paths outside Prefix the function serves too (ANY).
	Also []string
}

// Description is how the stack describes the site's function.
func (s Site) Description() string { return "Sesame ANY " + s.Prefix + "/…" }

// Dashboard is the owner's web dashboard (internal/dashboard).
var Dashboard = Site{Function: "dashboard", Prefix: "/dashboard"}

// AuthServer is the OAuth 2.1 authorization server (internal/oauth/
// oauthhttp): registration and tokens under /oauth, its metadata and the
// protected resource's at their well-known paths. One function serves
// them (docs/decisions.md): four small endpoints over one store.
var AuthServer = Site{Function: "oauth", Prefix: "/oauth", Also: []string{
	"/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource",
}}

// MCP is the remote MCP server (internal/mcpserver, streamable HTTP) of
// the assistants an owner connected.
var MCP = Site{Function: "mcp", Prefix: "/mcp"}

// Sites is every site.
var Sites = []Site{Dashboard, AuthServer, MCP}

// All is every route the stack serves: API, then Pages.
func All() []Route { return slices.Concat(API, Pages) }

// RouteFunction is a Lambda function that serves routes, all of one path.
type RouteFunction struct {
	Name   string
	Routes []Route
}

// Description names the function's methods and path, as the stack
// describes it: "Sesame GET /api/v1/emails", "Sesame GET, POST
// /unsubscribe/{token}".
func (f RouteFunction) Description() string {
	methods := make([]string, 0, len(f.Routes))
	for _, r := range f.Routes {
		methods = append(methods, r.Method)
	}
	return "Sesame " + strings.Join(methods, ", ") + " " + f.Routes[0].Path
}

// RouteFunctions groups All by function, in the order they first appear.
func RouteFunctions() []RouteFunction {
	var out []RouteFunction
	index := map[string]int{}
	for _, r := range All() {
		i, ok := index[r.Function]
		if !ok {
			i = len(out)
			index[r.Function] = i
			out = append(out, RouteFunction{Name: r.Function})
		}
		out[i].Routes = append(out[i].Routes, r)
	}
	return out
}

// Consumer is a Lambda function fed by a queue through an event source
// mapping (batches, partial batch failures reported).
type Consumer struct {
	Function string
	Queue    queues.Def
}

// The queue consumers.
var (
	Review          = Consumer{Function: "review", Queue: queues.Review}
	Status          = Consumer{Function: "status", Queue: queues.SESEvents}
	WebhookDispatch = Consumer{Function: "webhook-dispatch", Queue: queues.Webhooks}
	CampaignSender  = Consumer{Function: "campaign-sender", Queue: queues.Sends}
	// AutomationRunner executes automation runs, woken one per message.
	AutomationRunner = Consumer{Function: "automation-runner", Queue: queues.Automations}
)

// Consumers is every implemented queue consumer.
var Consumers = []Consumer{Review, Status, WebhookDispatch, CampaignSender, AutomationRunner}

// Scheduled is a Lambda function a schedule invokes (an EventBridge rule
// in AWS, a ticker in `sesame dev`).
type Scheduled struct {
	Function string
	Every    time.Duration
}

// CampaignTick starts the scheduled campaigns whose time has come.
var CampaignTick = Scheduled{Function: "campaign-tick", Every: time.Minute}

// AutomationTick wakes the automation runs whose long wait ended.
var AutomationTick = Scheduled{Function: "automation-tick", Every: time.Minute}

// Schedules is every scheduled function.
var Schedules = []Scheduled{CampaignTick, AutomationTick}

// FunctionNames is every function's name: those of RouteFunctions, then
// the consumers', then the scheduled functions'.
func FunctionNames() []string {
	var names []string
	for _, f := range RouteFunctions() {
		names = append(names, f.Name)
	}
	for _, c := range Consumers {
		names = append(names, c.Function)
	}
	for _, s := range Schedules {
		names = append(names, s.Function)
	}
	for _, s := range Sites {
		names = append(names, s.Function)
	}
	return names
}
