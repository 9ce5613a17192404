package devstack

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/status"
)

// The SES mailbox simulator addresses the local stack answers like SES.
const (
	SimulatorBounce          = "bounce@simulator.amazonses.com"
	SimulatorComplaint       = "complaint@simulator.amazonses.com"
	SimulatorSuppressionList = "suppressionlist@simulator.amazonses.com"
)

// Enqueuer puts a message on a queue.
type Enqueuer interface {
	Enqueue(ctx context.Context, body any) error
}

// SESEvents stands in for SES event publishing, which the SES emulator
// lacks: every message the emulator accepts is followed by the events real
// SES would publish through the configuration set, in SES's JSON format,
// on the ses-events queue.
type SESEvents struct {
	Next  sending.Transport
	Queue Enqueuer
	Now   func() time.Time
}

func (s *SESEvents) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Send sends through the emulator, then publishes the outcome the
// configuration sets publish (not Send, which they leave out): Delivery,
// or a Bounce or Complaint for the mailbox simulator addresses.
func (s *SESEvents) Send(ctx context.Context, in sending.SendInput) (string, error) {
	id, err := s.Next.Send(ctx, in)
	if err != nil {
		return "", err
	}
	mail := s.mail(in, id)
	now := s.now()
	var evs []status.SESEvent
	delivery := status.SESEvent{EventType: status.TypeDelivery, Mail: mail, Delivery: &status.Delivery{
		Timestamp: now.Add(time.Second), ProcessingTimeMillis: 1000, Recipients: []string{in.To},
		SMTPResponse: "250 2.6.0 Message received", ReportingMTA: "a8-1.smtp-out.amazonses.com",
	}}
	switch simulatorMailbox(in.To) {
	case SimulatorBounce:
		evs = append(evs, bounce(mail, in.To, "General", "smtp; 550 5.1.1 user unknown", now))
	case SimulatorSuppressionList:
		evs = append(evs, bounce(mail, in.To, "OnAccountSuppressionList", "Amazon SES did not send the message to this address because it is on the suppression list for your account.", now))
	case SimulatorComplaint:
		evs = append(evs, delivery, status.SESEvent{EventType: status.TypeComplaint, Mail: mail, Complaint: &status.Complaint{
			ComplainedRecipients: []status.Recipient{{EmailAddress: in.To}}, Timestamp: now.Add(2 * time.Second),
			FeedbackID: "local-" + id, ComplaintFeedbackType: "abuse", UserAgent: "Sesame local simulator",
		}})
	default:
		evs = append(evs, delivery)
	}
	for _, ev := range evs {
		if err := s.publish(ctx, ev); err != nil {
			return id, err // sent; only the simulation failed
		}
	}
	return id, nil
}

// simulatorMailbox is the mailbox simulator address to is, without the
// label SES's simulator accepts (bounce+1@simulator.amazonses.com is
// bounce@…), so that many distinct contacts can bounce or complain; any
// other address is returned lowercased.
func simulatorMailbox(to string) string {
	to = strings.ToLower(to)
	local, domain, ok := strings.Cut(to, "@")
	if !ok || domain != "simulator.amazonses.com" {
		return to
	}
	box, _, _ := strings.Cut(local, "+")
	return box + "@" + domain
}

// publish puts ev on the ses-events queue as production's topic
// subscription does: raw message delivery, so the message body is the SES
// event record itself, with no SNS envelope.
func (s *SESEvents) publish(ctx context.Context, ev status.SESEvent) error {
	return s.Queue.Enqueue(ctx, ev)
}

func bounce(mail status.Mail, to, subType, diagnostic string, now time.Time) status.SESEvent {
	return status.SESEvent{EventType: status.TypeBounce, Mail: mail, Bounce: &status.Bounce{
		BounceType: "Permanent", BounceSubType: subType, Timestamp: now.Add(time.Second),
		BouncedRecipients: []status.Recipient{{EmailAddress: to, Action: "failed", Status: "5.1.1", DiagnosticCode: diagnostic}},
		FeedbackID:        "local-bounce", ReportingMTA: "dns; amazonses.com",
	}}
}

func (s *SESEvents) mail(in sending.SendInput, messageID string) status.Mail {
	tags := map[string][]string{"ses:configuration-set": {in.ConfigurationSet}}
	for k, v := range in.Tags {
		tags[k] = []string{v}
	}
	return status.Mail{Timestamp: s.now(), Source: in.From, MessageID: messageID, Destination: []string{in.To}, Tags: tags}
}

// EmailReader reads one email.
type EmailReader interface {
	GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error)
}

// Engagement serves the dev-only routes that open an email or click a link
// in it, producing the Open and Click events SES would publish. They exist
// only in `sesame dev`; no function serves them.
type Engagement struct {
	Emails EmailReader
	Events *SESEvents
}

// Dev-only routes, authenticated like the API.
var (
	OpenRoute  = routes.Route{Method: http.MethodPost, Path: "/dev/emails/{id}/open", Scope: apikey.EmailsRead}
	ClickRoute = routes.Route{Method: http.MethodPost, Path: "/dev/emails/{id}/click", Scope: apikey.EmailsRead}
)

// Routes returns the dev-only routes.
func (g Engagement) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: OpenRoute, Handler: g.Open}, {Route: ClickRoute, Handler: g.Click}}
}

func (g Engagement) email(r *http.Request) (email.Email, error) {
	e, err := g.Emails.GetEmail(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, r.PathValue("id"))
	if errors.Is(err, email.ErrNotFound) {
		return email.Email{}, fail.NotFound("email")
	}
	if err != nil {
		return email.Email{}, err
	}
	if e.Environment != apikey.Live || e.Status.Rank() < email.StatusSent.Rank() {
		return email.Email{}, fail.Invalid("id", "only live emails handed to SES produce open and click events")
	}
	return e, nil
}

func (g Engagement) tags(e email.Email) status.Mail {
	return status.Mail{Timestamp: e.SentAt, MessageID: "local-" + e.ID, Destination: []string{e.To}, Tags: map[string][]string{
		"email_id": {e.ID}, "workspace_id": {e.WorkspaceID},
	}}
}

// Open answers POST /dev/emails/{id}/open.
func (g Engagement) Open(w http.ResponseWriter, r *http.Request) error {
	e, err := g.email(r)
	if err != nil {
		return err
	}
	ev := status.SESEvent{EventType: status.TypeOpen, Mail: g.tags(e), Open: &status.Open{
		IPAddress: "127.0.0.1", Timestamp: g.Events.now(), UserAgent: r.UserAgent(),
	}}
	return g.publish(w, r, ev)
}

// Click answers POST /dev/emails/{id}/click?url=<link>.
func (g Engagement) Click(w http.ResponseWriter, r *http.Request) error {
	e, err := g.email(r)
	if err != nil {
		return err
	}
	link := r.URL.Query().Get("url")
	if u, err := url.Parse(link); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail.Invalid("url", "url must be the http(s) link that was clicked")
	}
	tags := map[string][]string{}
	if strings.Contains(strings.ToLower(link), "unsubscribe") {
		tags["sesame_link"] = []string{"unsubscribe"}
	}
	ev := status.SESEvent{EventType: status.TypeClick, Mail: g.tags(e), Click: &status.Click{
		IPAddress: "127.0.0.1", Timestamp: g.Events.now(), UserAgent: r.UserAgent(), Link: link, LinkTags: tags,
	}}
	return g.publish(w, r, ev)
}

func (g Engagement) publish(w http.ResponseWriter, r *http.Request, ev status.SESEvent) error {
	if err := g.Events.publish(r.Context(), ev); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusAccepted, map[string]string{"queued": ev.EventType})
	return nil
}
