package sending_test

import (
	"encoding/json"
	"net/mail"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

const (
	wsID      = "ws_0000000000000001"
	emailID   = "01937f4e-0000-7000-8000-000000000001"
	recipient = "ann@example.com"
	bodyHash  = "hash-of-this-body"
)

// now is mid-month, so the allowance renews on 2026-12-01.
var now = time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)

// edit changes one thing of the input a plan is made from.
type edit func(in *sending.PlanInput)

// input is a live send from a verified address, of a cleared template,
// to a recipient who is not suppressed: it is delivered, unless edits
// say otherwise.
func input(edits ...edit) sending.PlanInput {
	in := sending.PlanInput{
		Principal: apikey.Principal{WorkspaceID: wsID, KeyID: "key_1", Environment: apikey.Live},
		Request: sending.Request{
			To: recipient, Subject: "Your Acme receipt", HTML: `<p>Thanks for your order.</p><a href="https://acme.test/orders/1">Your order</a>`,
			From: "Acme Billing <billing@acme.test>",
		},
		Context: sending.Context{
			Workspace: workspace.Workspace{ID: wsID, Name: "Acme", VerifiedDomains: []string{"acme.test"}},
			Template:  &sending.Template{Fingerprint: "fp", State: sending.TemplateCleared},
		},
		EmailID: emailID,
		Now:     now,
	}
	for _, e := range edits {
		e(&in)
	}
	return in
}

func testKey(in *sending.PlanInput)     { in.Principal.Environment = apikey.Test }
func suppressed(in *sending.PlanInput)  { in.Context.Suppressed = true }
func newTemplate(in *sending.PlanInput) { in.Context.Template = nil }
func trackingOff(in *sending.PlanInput) { in.Request.Tracking = string(email.TrackingOff) }
func allowanceUsed(in *sending.PlanInput) {
	in.Context.Workspace.MonthlyAllowance, in.Context.MonthlySent = 100, 100
}
func foreignBrand(in *sending.PlanInput) { in.Request.Subject = "Your PayPal receipt" }
func noSender(in *sending.PlanInput)     { in.Request.From = "" }

func template(state sending.TemplateState) edit {
	return func(in *sending.PlanInput) { in.Context.Template = &sending.Template{Fingerprint: "fp", State: state} }
}

func html(body string) edit {
	return func(in *sending.PlanInput) { in.Request.HTML = body }
}

func unknownSenderID(in *sending.PlanInput) {
	in.Request.SenderID, in.Context.Sender = "snd_unknown", nil
}

func senderID(s identity.Sender) edit {
	return func(in *sending.PlanInput) { in.Request.SenderID, in.Context.Sender = s.ID, &s }
}

func defaultSender(s identity.Sender) edit {
	return func(in *sending.PlanInput) { in.Context.Workspace.DefaultSender = &s }
}

// keyUsed makes the Idempotency-Key already taken by a request with body
// hash, answered answer (pending while that request runs), at createdAt.
func keyUsed(hash string, pending bool, createdAt time.Time, answer sending.Outcome) edit {
	return func(in *sending.PlanInput) {
		body, err := json.Marshal(answer.Body)
		if err != nil {
			panic(err)
		}
		in.RequestHash = bodyHash
		in.Context.Idempotency = &sending.IdempotencyRecord{
			Key: "live:k1", RequestHash: hash, StatusCode: answer.StatusCode, Body: body,
			Pending: pending, CreatedAt: createdAt, ExpiresAt: createdAt.Add(24 * time.Hour),
		}
	}
}

// The answers a send can give, in words the tests compare whole.
const (
	msgSent       = "accepted for delivery"
	msgCaptured   = "captured in test mode; not delivered"
	msgSuppressed = "the recipient is on the workspace's do-not-send list; the email was recorded and not sent"
	msgHeld       = "held for a quick security review; it keeps this id and is sent once cleared"
	msgDenied     = "not sent: this template did not pass the security review"
)

// outcome is what a planned send does and answers.
type outcome struct {
	action      sending.Action
	status      email.Status
	code        int
	success     bool
	message     string
	newTemplate bool
}

var (
	delivered    = outcome{sending.ActionDeliver, email.StatusSent, 200, true, msgSent, false}
	captured     = outcome{sending.ActionCapture, email.StatusSent, 200, true, msgCaptured, false}
	recorded     = outcome{sending.ActionRecord, email.StatusSuppressed, 200, false, msgSuppressed, false}
	failed       = outcome{sending.ActionFail, email.StatusFailed, 200, false, msgDenied, false}
	held         = outcome{sending.ActionHold, email.StatusHeld, 202, true, msgHeld, false}
	heldTemplate = outcome{sending.ActionHold, email.StatusHeld, 202, true, msgHeld, true}
)

// Every status a send can take, and which rule wins when several apply:
// a suppressed recipient over everything (not even a test capture), test
// mode over the hold (no reputation to protect), a denied template over
// the email's own check.
func TestPlanStatus(t *testing.T) {
	cases := map[string]struct {
		edits []edit
		want  outcome
	}{
		"cleared template, clean email": {nil, delivered},
		"test key":                      {[]edit{testKey}, captured},
		"suppressed":                    {[]edit{suppressed}, recorded},
		"denied template":               {[]edit{template(sending.TemplateDenied)}, failed},
		"new template":                  {[]edit{newTemplate}, heldTemplate},
		"pending template":              {[]edit{template(sending.TemplatePending)}, held},

		// The email's own check, on a cleared template.
		"foreign brand":                    {[]edit{foreignBrand}, held},
		"foreign brand the workspace owns": {[]edit{foreignBrand, func(in *sending.PlanInput) { in.Context.Workspace.Brands = []string{"PayPal"} }}, delivered},
		"deceptive link":                   {[]edit{html(`<a href="https://evil.test/login">https://acme.test/login</a>`)}, held},
		"URL shortener":                    {[]edit{html(`<a href="https://bit.ly/abc">your order</a>`)}, held},
		"bare IP link":                     {[]edit{html(`<a href="http://192.0.2.7/login">your order</a>`)}, held},

		// Precedence.
		"suppressed, test key":               {[]edit{suppressed, testKey}, recorded},
		"suppressed, denied template":        {[]edit{suppressed, template(sending.TemplateDenied)}, recorded},
		"suppressed, new template":           {[]edit{suppressed, newTemplate}, recorded},
		"suppressed, foreign brand":          {[]edit{suppressed, foreignBrand}, recorded},
		"test key, denied template":          {[]edit{testKey, template(sending.TemplateDenied)}, captured},
		"test key, new template":             {[]edit{testKey, newTemplate}, captured},
		"test key, foreign brand":            {[]edit{testKey, foreignBrand}, captured},
		"denied template, foreign brand":     {[]edit{template(sending.TemplateDenied), foreignBrand}, failed},
		"new template, foreign brand":        {[]edit{newTemplate, foreignBrand}, heldTemplate},
		"pending template, clean email":      {[]edit{template(sending.TemplatePending)}, held},
		"allowance used up, test key":        {[]edit{allowanceUsed, testKey}, captured},
		"allowance used up, suppressed test": {[]edit{allowanceUsed, testKey, suppressed}, recorded},

		// The allowance: 0 is no cap; the last email within it goes.
		"no allowance set": {[]edit{func(in *sending.PlanInput) { in.Context.MonthlySent = 1_000_000 }}, delivered},
		"last email of the allowance": {[]edit{func(in *sending.PlanInput) {
			in.Context.Workspace.MonthlyAllowance, in.Context.MonthlySent = 100, 99
		}}, delivered},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := input(tc.edits...)
			d, err := sending.Plan(in)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			w := tc.want
			if d.Action != w.action || d.Email.Status != w.status || d.NewTemplate != w.newTemplate {
				t.Errorf("action %s, status %s, new template %v; want %s, %s, %v", d.Action, d.Email.Status, d.NewTemplate, w.action, w.status, w.newTemplate)
			}
			body := d.Answer.Body
			if d.Answer.StatusCode != w.code || body.Success != w.success || body.Status != w.status || body.Message != w.message {
				t.Errorf("answer %d %+v; want %d, success %v, status %s, message %q", d.Answer.StatusCode, body, w.code, w.success, w.status, w.message)
			}
			if body.ID != emailID || body.Warnings != nil {
				t.Errorf("answer id %q, warnings %v; want %s and none (the build adds them)", body.ID, body.Warnings, emailID)
			}
			// A failed email says why in error, message and the stored email.
			if w.status == email.StatusFailed {
				if body.Error == nil || *body.Error != msgDenied || d.Email.Error != msgDenied {
					t.Errorf("error %v, email error %q; want %q in both", body.Error, d.Email.Error, msgDenied)
				}
			} else if body.Error != nil || d.Email.Error != "" {
				t.Errorf("error %v, email error %q; want none", body.Error, d.Email.Error)
			}
			want := email.Email{
				ID: emailID, WorkspaceID: wsID, To: recipient, Subject: in.Request.Subject, Type: email.TypeTransactional,
				Environment: in.Principal.Environment, SentAt: now, TrackingMode: email.TrackingFull, Status: w.status, Error: d.Email.Error,
			}
			if !reflect.DeepEqual(d.Email, want) {
				t.Errorf("email = %+v, want %+v", d.Email, want)
			}
		})
	}
}

// Every refusal, with its kind, reason and param, and which is given when
// several apply: the Idempotency-Key first, then the sender, the tracking
// mode and the allowance, all before the status.
func TestPlanRefusals(t *testing.T) {
	const untilDecember = 10*24*time.Hour + 15*time.Hour + 30*time.Minute // from now
	answer := sending.Outcome{StatusCode: 200, Body: sending.Response{Success: true, ID: emailID, Status: email.StatusSent, Message: msgSent}}
	cases := map[string]struct {
		edits      []edit
		kind       fail.Kind
		reason     fail.Reason
		param      string
		retryAfter time.Duration
		message    string // part of it
	}{
		"Idempotency-Key used with another body": {[]edit{keyUsed("other", false, now.Add(-time.Hour), answer)},
			fail.KindConflict, fail.IdempotencyConflict, "Idempotency-Key", 0, "different request body"},
		"Idempotency-Key used with another body, still running": {[]edit{keyUsed("other", true, now.Add(-time.Second), answer)},
			fail.KindConflict, fail.IdempotencyConflict, "Idempotency-Key", 0, "different request body"},
		"Idempotency-Key in flight": {[]edit{keyUsed(bodyHash, true, now.Add(-time.Second), answer)},
			fail.KindConflict, fail.IdempotencyInProgress, "Idempotency-Key", time.Second, "still being processed"},
		"Idempotency-Key in flight, end of the window": {[]edit{keyUsed(bodyHash, true, now.Add(-59*time.Second), answer)},
			fail.KindConflict, fail.IdempotencyInProgress, "Idempotency-Key", time.Second, "still being processed"},

		"unknown sender_id": {[]edit{unknownSenderID},
			fail.KindNotFound, fail.SenderNotFound, "sender_id", 0, "no sender with this id"},
		"sender_id on an unverified domain": {[]edit{senderID(identity.Sender{ID: "snd_1", Email: "ann@other.test"})},
			fail.KindForbidden, fail.SenderNotVerified, "sender_id", 0, "ann@other.test is not on a verified domain"},
		"from on an unverified domain": {[]edit{func(in *sending.PlanInput) { in.Request.From = "bob@other.test" }},
			fail.KindForbidden, fail.SenderNotVerified, "from", 0, "bob@other.test is not on a verified domain"},
		"from not an address": {[]edit{func(in *sending.PlanInput) { in.Request.From = "not an address" }},
			fail.KindInvalid, "", "from", 0, "one email address"},
		"default sender on an unverified domain": {[]edit{noSender, defaultSender(identity.Sender{Email: "ann@other.test"})},
			fail.KindForbidden, fail.SenderNotVerified, "", 0, "ann@other.test is not on a verified domain"},
		"no sender at all": {[]edit{noSender},
			fail.KindMissing, "", "from", 0, "from is required"},
		// A stored sender that Build would not read, or whose name breaks
		// the display-name rule, is refused, not handed to Build, which
		// would refuse it as a fault of ours.
		"sender_id whose name is another domain's address": {[]edit{senderID(identity.Sender{ID: "snd_1", Name: "help@bank.example", Email: "billing@acme.test"})},
			fail.KindInvalid, "", "sender_id", 0, "another domain than the sender's (acme.test); it shows help@bank.example"},
		"default sender whose name is another domain's address": {[]edit{noSender, defaultSender(identity.Sender{Name: "help@bank.example", Email: "billing@acme.test"})},
			fail.KindInvalid, "", "", 0, "it shows help@bank.example"},
		"sender_id with an unreadable default reply-to": {[]edit{senderID(identity.Sender{ID: "snd_1", Email: "billing@acme.test", ReplyTo: []string{"r@example.org,"}})},
			fail.KindInvalid, "", "sender_id", 0, "default reply-to is not valid"},

		"tracking off, not provisioned": {[]edit{trackingOff},
			fail.KindUnavailable, "", "tracking", 0, "not provisioned"},
		"workspace default off, not provisioned": {[]edit{func(in *sending.PlanInput) { in.Context.Workspace.DefaultTracking = "off" }},
			fail.KindUnavailable, "", "tracking", 0, "not provisioned"},

		"allowance used up": {[]edit{allowanceUsed},
			fail.KindTooMany, fail.QuotaExceeded, "", untilDecember, "allowance of 100 live emails; it renews on 2026-12-01"},
		"allowance passed": {[]edit{func(in *sending.PlanInput) { in.Context.Workspace.MonthlyAllowance, in.Context.MonthlySent = 100, 130 }},
			fail.KindTooMany, fail.QuotaExceeded, "", untilDecember, "renews on 2026-12-01"},
		"allowance used up in December": {[]edit{allowanceUsed, func(in *sending.PlanInput) { in.Now = time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC) }},
			fail.KindTooMany, fail.QuotaExceeded, "", time.Minute, "renews on 2027-01-01"},
		// Months are UTC months: December has begun in Paris, not in UTC.
		"allowance used up, clock in another zone": {[]edit{allowanceUsed, func(in *sending.PlanInput) {
			in.Now = time.Date(2026, 12, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600))
		}}, fail.KindTooMany, fail.QuotaExceeded, "", 30 * time.Minute, "renews on 2026-12-01"},

		// Precedence.
		"Idempotency-Key conflict over an unknown sender_id": {[]edit{unknownSenderID, keyUsed("other", false, now.Add(-time.Hour), answer)},
			fail.KindConflict, fail.IdempotencyConflict, "Idempotency-Key", 0, ""},
		"Idempotency-Key in flight over the allowance": {[]edit{allowanceUsed, keyUsed(bodyHash, true, now, answer)},
			fail.KindConflict, fail.IdempotencyInProgress, "Idempotency-Key", time.Second, ""},
		"sender_id over from": {[]edit{unknownSenderID, func(in *sending.PlanInput) { in.Request.From = "billing@acme.test" }},
			fail.KindNotFound, fail.SenderNotFound, "sender_id", 0, ""},
		"unknown sender_id over tracking": {[]edit{unknownSenderID, trackingOff},
			fail.KindNotFound, fail.SenderNotFound, "sender_id", 0, ""},
		"unverified sender, test key": {[]edit{testKey, func(in *sending.PlanInput) { in.Request.From = "bob@other.test" }},
			fail.KindForbidden, fail.SenderNotVerified, "from", 0, ""},
		"tracking over the allowance": {[]edit{trackingOff, allowanceUsed},
			fail.KindUnavailable, "", "tracking", 0, ""},
		"tracking off, test key": {[]edit{trackingOff, testKey},
			fail.KindUnavailable, "", "tracking", 0, ""},
		"allowance over a suppressed recipient": {[]edit{allowanceUsed, suppressed},
			fail.KindTooMany, fail.QuotaExceeded, "", untilDecember, ""},
		"allowance over a denied template": {[]edit{allowanceUsed, template(sending.TemplateDenied)},
			fail.KindTooMany, fail.QuotaExceeded, "", untilDecember, ""},
		"allowance over a new template": {[]edit{allowanceUsed, newTemplate},
			fail.KindTooMany, fail.QuotaExceeded, "", untilDecember, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := sending.Plan(input(tc.edits...))
			e, ok := fail.As(err)
			if !ok {
				t.Fatalf("Plan = %+v, %v; want a *fail.Error", d, err)
			}
			if e.Kind != tc.kind || e.Reason != tc.reason || e.Param != tc.param || e.RetryAfter != tc.retryAfter {
				t.Errorf("got %s, reason %q, param %q, retry after %v; want %s, %q, %q, %v", e.Kind, e.Reason, e.Param, e.RetryAfter, tc.kind, tc.reason, tc.param, tc.retryAfter)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q, want it to contain %q", e.Message, tc.message)
			}
			// Only a dependency that is not there yet is worth retrying as is.
			if e.Transient != (tc.kind == fail.KindUnavailable) {
				t.Errorf("transient = %v", e.Transient)
			}
			if !reflect.DeepEqual(d, sending.Decision{}) {
				t.Errorf("decision %+v alongside the refusal", d)
			}
		})
	}
}

// A used Idempotency-Key with the same body answers as it did the first
// time, before any other rule is looked at: nothing is decided anew.
func TestPlanReplay(t *testing.T) {
	sentAnswer := sending.Outcome{StatusCode: 200, Body: sending.Response{Success: true, ID: "first-id", Status: email.StatusSent, Message: msgSent,
		Warnings: []sending.Warning{{Code: "large_attachment", Message: "big"}}}}
	heldAnswer := sending.Outcome{StatusCode: 202, Body: sending.Response{Success: true, ID: "first-id", Status: email.StatusHeld, Message: msgHeld}}
	reason := msgDenied
	failedAnswer := sending.Outcome{StatusCode: 200, Body: sending.Response{ID: "first-id", Status: email.StatusFailed, Message: msgDenied, Error: &reason}}
	cases := map[string]struct {
		edits []edit
		want  sending.Outcome
	}{
		"finished":                          {[]edit{keyUsed(bodyHash, false, now.Add(-time.Hour), sentAnswer)}, sentAnswer},
		"finished, held":                    {[]edit{keyUsed(bodyHash, false, now.Add(-time.Hour), heldAnswer)}, heldAnswer},
		"finished, failed":                  {[]edit{keyUsed(bodyHash, false, now.Add(-time.Hour), failedAnswer)}, failedAnswer},
		"finished a moment ago":             {[]edit{keyUsed(bodyHash, false, now, sentAnswer)}, sentAnswer},
		"pending past the in-flight window": {[]edit{keyUsed(bodyHash, true, now.Add(-time.Minute), sentAnswer)}, sentAnswer},
		"over every other rule": {[]edit{
			unknownSenderID, trackingOff, allowanceUsed, suppressed, template(sending.TemplateDenied),
			keyUsed(bodyHash, false, now.Add(-time.Hour), sentAnswer),
		}, sentAnswer},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := sending.Plan(input(tc.edits...))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			answer := tc.want
			answer.Replayed = true // a replay makes no email
			want := sending.Decision{Action: sending.ActionReplay, Answer: answer}
			if !reflect.DeepEqual(d, want) {
				t.Errorf("decision = %+v, want %+v", d, want)
			}
		})
	}
}

// A stored answer that does not read back is our fault, not the client's.
func TestPlanReplayUnreadable(t *testing.T) {
	d, err := sending.Plan(input(func(in *sending.PlanInput) {
		in.RequestHash = bodyHash
		in.Context.Idempotency = &sending.IdempotencyRecord{Key: "live:k1", RequestHash: bodyHash, StatusCode: 200, Body: []byte("{"), CreatedAt: now.Add(-time.Hour)}
	}))
	if err == nil || fail.KindOf(err) != fail.KindInternal {
		t.Errorf("Plan = %+v, %v; want an internal error", d, err)
	}
}

// The sender is sender_id's, else from, else the workspace default; the
// request's reply_to wins over the sender's own.
func TestPlanSender(t *testing.T) {
	support := identity.Sender{ID: "snd_1", Name: "Acme Support", Email: "help@acme.test", ReplyTo: []string{"tickets@acme.test"}}
	fallback := identity.Sender{ID: "snd_2", Name: "Acme", Email: "hello@acme.test", ReplyTo: []string{"inbox@acme.test"}}
	replyTo := func(in *sending.PlanInput) { in.Request.ReplyTo = sending.ReplyTo{"ann@acme.test", "bob@acme.test"} }
	cases := map[string]struct {
		edits   []edit
		from    mail.Address
		replyTo []string
	}{
		"from":                                {nil, mail.Address{Name: "Acme Billing", Address: "billing@acme.test"}, nil},
		"from without a name":                 {[]edit{func(in *sending.PlanInput) { in.Request.From = "billing@acme.test" }}, mail.Address{Address: "billing@acme.test"}, nil},
		"from, reply_to":                      {[]edit{replyTo}, mail.Address{Name: "Acme Billing", Address: "billing@acme.test"}, []string{"ann@acme.test", "bob@acme.test"}},
		"sender_id":                           {[]edit{senderID(support)}, support.Address(), support.ReplyTo},
		"sender_id, reply_to":                 {[]edit{senderID(support), replyTo}, support.Address(), []string{"ann@acme.test", "bob@acme.test"}},
		"sender_id without a reply_to":        {[]edit{senderID(identity.Sender{ID: "snd_3", Email: "x@acme.test"})}, mail.Address{Address: "x@acme.test"}, nil},
		"sender_id over from and the default": {[]edit{senderID(support), defaultSender(fallback)}, support.Address(), support.ReplyTo},
		"default sender":                      {[]edit{noSender, defaultSender(fallback)}, fallback.Address(), fallback.ReplyTo},
		"default sender, reply_to":            {[]edit{noSender, defaultSender(fallback), replyTo}, fallback.Address(), []string{"ann@acme.test", "bob@acme.test"}},
		"from over the default sender":        {[]edit{defaultSender(fallback)}, mail.Address{Name: "Acme Billing", Address: "billing@acme.test"}, nil},
		"verified domain in capitals":         {[]edit{func(in *sending.PlanInput) { in.Request.From = "billing@ACME.test" }}, mail.Address{Address: "billing@ACME.test"}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := sending.Plan(input(tc.edits...))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if d.From != tc.from || !reflect.DeepEqual(d.ReplyTo, tc.replyTo) {
				t.Errorf("from %v, reply_to %v; want %v, %v", d.From, d.ReplyTo, tc.from, tc.replyTo)
			}
		})
	}
}

// The tracking mode is the request's, else the workspace's default, else
// full; off only once provisioned.
func TestPlanTracking(t *testing.T) {
	cases := map[string]struct {
		requested, workspaceDefault string
		provisioned                 bool
		want                        email.TrackingMode
	}{
		"neither":                          {"", "", false, email.TrackingFull},
		"requested":                        {"essential", "", false, email.TrackingEssential},
		"workspace default":                {"", "essential", false, email.TrackingEssential},
		"requested over workspace default": {"full", "essential", false, email.TrackingFull},
		"requested off, provisioned":       {"off", "", true, email.TrackingOff},
		"default off, provisioned":         {"", "off", true, email.TrackingOff},
		// The request's own mode needs nothing provisioned.
		"requested over an unprovisioned default off": {"essential", "off", false, email.TrackingEssential},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := sending.Plan(input(func(in *sending.PlanInput) {
				in.Request.Tracking = tc.requested
				in.Context.Workspace.DefaultTracking, in.Context.Workspace.TrackingOffProvisioned = tc.workspaceDefault, tc.provisioned
			}))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if d.Email.TrackingMode != tc.want {
				t.Errorf("tracking mode %s, want %s", d.Email.TrackingMode, tc.want)
			}
		})
	}
}

// The email's time is the UTC instant Plan was given: no clock is read.
func TestPlanTimeIsGiven(t *testing.T) {
	given := time.Date(2026, 11, 20, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	d, err := sending.Plan(input(func(in *sending.PlanInput) { in.Now = given }))
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if !d.Email.SentAt.Equal(now) || d.Email.SentAt.Location() != time.UTC {
		t.Errorf("sent at %v, want %v in UTC", d.Email.SentAt, now)
	}
}

// Test failures name actions in words.
func TestActionNames(t *testing.T) {
	for a := sending.ActionReplay; a <= sending.ActionDeliver; a++ {
		if strings.HasPrefix(a.String(), "action(") {
			t.Errorf("action %d has no name", a)
		}
	}
}
