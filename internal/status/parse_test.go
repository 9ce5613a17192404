package status_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/sesame-mail/sesame/internal/status"
)

// fixtureTypes is the eventType of every SES sample; a sample missing here
// fails TestParseFixtures, so each one is looked at.
var fixtureTypes = map[string]string{
	"bounce-permanent":       status.TypeBounce,
	"bounce-suppressionlist": status.TypeBounce,
	"bounce-transient":       status.TypeBounce,
	"click-unsubscribe":      status.TypeClick,
	"click":                  status.TypeClick,
	"complaint":              status.TypeComplaint,
	"delivery-delay":         status.TypeDeliveryDelay,
	"delivery":               status.TypeDelivery,
	"open":                   status.TypeOpen,
	"reject":                 status.TypeReject,
	"rendering-failure":      status.TypeRenderingFailure,
	"send":                   status.TypeSend,
}

func TestParseFixtures(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			want, ok := fixtureTypes[name]
			if !ok {
				t.Fatalf("fixture %s is not in fixtureTypes; add it", name)
			}
			ev := parsed(t, fixtureFor(t, name, "ws_A", "email-1", "bob@example.com"))
			if ev.EventType != want {
				t.Errorf("eventType = %q, want %q", ev.EventType, want)
			}
			if ev.Tag("workspace_id") != "ws_A" || ev.Tag("email_id") != "email-1" {
				t.Errorf("tags workspace_id=%q email_id=%q, want ws_A and email-1", ev.Tag("workspace_id"), ev.Tag("email_id"))
			}
			if len(ev.Mail.Destination) != 1 || ev.Mail.Destination[0] != "bob@example.com" {
				t.Errorf("destination = %v", ev.Mail.Destination)
			}
			if ev.Mail.Timestamp.IsZero() || ev.Mail.MessageID == "" {
				t.Errorf("mail timestamp %v, message id %q", ev.Mail.Timestamp, ev.Mail.MessageID)
			}
		})
	}
	for name := range fixtureTypes {
		if _, err := status.Parse(fixture(t, name)); err != nil {
			t.Errorf("fixtureTypes names %s, which does not parse: %v", name, err)
		}
	}
}

func TestParseDetails(t *testing.T) {
	cases := map[string]func(t *testing.T, ev status.SESEvent){
		"delivery": func(t *testing.T, ev status.SESEvent) {
			if ev.Delivery == nil || !ev.Delivery.Timestamp.Equal(at(10, 0, 1, 250)) || ev.Delivery.Recipients[0] != recipient {
				t.Errorf("delivery = %+v", ev.Delivery)
			}
		},
		"bounce-permanent": func(t *testing.T, ev status.SESEvent) {
			b := ev.Bounce
			if b == nil || b.BounceType != "Permanent" || b.BounceSubType != "General" || len(b.BouncedRecipients) != 1 ||
				b.BouncedRecipients[0].EmailAddress != recipient || !b.Timestamp.Equal(at(10, 0, 2, 669)) {
				t.Errorf("bounce = %+v", b)
			}
		},
		"bounce-transient": func(t *testing.T, ev status.SESEvent) {
			if ev.Bounce == nil || ev.Bounce.BounceType != "Transient" {
				t.Errorf("bounce = %+v", ev.Bounce)
			}
		},
		"complaint": func(t *testing.T, ev status.SESEvent) {
			c := ev.Complaint
			if c == nil || c.ComplainedRecipients[0].EmailAddress != recipient || c.ComplaintFeedbackType != "abuse" || !c.Timestamp.Equal(at(10, 5, 0, 0)) {
				t.Errorf("complaint = %+v", c)
			}
		},
		"reject": func(t *testing.T, ev status.SESEvent) {
			if ev.Reject == nil || ev.Reject.Reason != "Bad content" {
				t.Errorf("reject = %+v", ev.Reject)
			}
		},
		"rendering-failure": func(t *testing.T, ev status.SESEvent) {
			if ev.Failure == nil || ev.Failure.TemplateName != "MyTemplate" || ev.Failure.ErrorMessage == "" {
				t.Errorf("failure = %+v", ev.Failure)
			}
		},
		"open": func(t *testing.T, ev status.SESEvent) {
			if ev.Open == nil || !ev.Open.Timestamp.Equal(at(10, 10, 0, 0)) || ev.Open.UserAgent == "" {
				t.Errorf("open = %+v", ev.Open)
			}
		},
		"click": func(t *testing.T, ev status.SESEvent) {
			c := ev.Click
			if c == nil || c.Link != "https://demo.sesame.test/orders/123" || !c.Timestamp.Equal(at(10, 12, 0, 0)) || c.LinkTags["samplekey0"][0] != "samplevalue0" {
				t.Errorf("click = %+v", c)
			}
		},
		"click-unsubscribe": func(t *testing.T, ev status.SESEvent) {
			if ev.Click == nil || ev.Click.LinkTags["sesame_link"][0] != "unsubscribe" {
				t.Errorf("click = %+v", ev.Click)
			}
		},
		"delivery-delay": func(t *testing.T, ev status.SESEvent) {
			if ev.DeliveryDelay == nil || ev.DeliveryDelay.DelayType != "TransientCommunicationFailure" {
				t.Errorf("deliveryDelay = %+v", ev.DeliveryDelay)
			}
		},
		"send": func(t *testing.T, ev status.SESEvent) {
			if ev.Send == nil || !ev.Mail.Timestamp.Equal(at(10, 0, 0, 0)) {
				t.Errorf("send = %+v, mail timestamp %v", ev.Send, ev.Mail.Timestamp)
			}
		},
	}
	for name, check := range cases {
		t.Run(name, func(t *testing.T) { check(t, sesEvent(t, name)) })
	}
}

// sns wraps body as an SNS notification, as a subscription without raw
// message delivery puts it on the queue.
func sns(t *testing.T, msgType string, body []byte) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"Type": msgType, "MessageId": "6f1c7d7e-0000-4000-8000-000000000001",
		"TopicArn": "arn:aws:sns:us-east-1:123456789012:sesame-ses-events",
		"Message":  string(body), "Timestamp": "2026-11-22T10:00:03.000Z", "SignatureVersion": "1",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventBridge wraps body as the EventBridge event the rule of the stack
// before SNS put on the queue (SES's event in detail).
func eventBridge(t *testing.T, source string, body []byte) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"version": "0", "id": "0d9e8b4c-0000-4000-8000-000000000001", "detail-type": "Email Delivered",
		"source": source, "account": "123456789012", "time": "2026-11-22T10:00:03Z", "region": "us-east-1",
		"resources": []string{}, "detail": json.RawMessage(body),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Production's queue gets bare SES records (the topic's raw delivery,
// TestParseFixtures); an SNS notification and an EventBridge event (left on
// the queue by the stack before SNS) parse the same.
func TestParseWrapped(t *testing.T) {
	wrappers := map[string]func(t *testing.T, body []byte) []byte{
		"EventBridge": func(t *testing.T, body []byte) []byte { return eventBridge(t, "aws.ses", body) },
		"SNS":         func(t *testing.T, body []byte) []byte { return sns(t, "Notification", body) },
	}
	for wrapper, wrap := range wrappers {
		for _, name := range fixtureNames(t) {
			t.Run(wrapper+"/"+name, func(t *testing.T) {
				raw := sesEvent(t, name)
				wrapped := parsed(t, wrap(t, fixture(t, name)))
				if !reflect.DeepEqual(wrapped, raw) {
					t.Errorf("%s-wrapped event differs from the raw one:\n got %+v\nwant %+v", wrapper, wrapped, raw)
				}
			})
		}
	}
}

// badBodies are SQS bodies the pipeline can never apply, with the error
// Parse gives each.
func badBodies(t *testing.T) map[string]struct {
	body []byte
	want error
} {
	t.Helper()
	setType := func(typ string) func(map[string]any) {
		return func(m map[string]any) { m["eventType"] = typ }
	}
	tags := func(edit func(tags map[string]any)) func(map[string]any) {
		return func(m map[string]any) { edit(obj(t, obj(t, m, "mail"), "tags")) }
	}
	return map[string]struct {
		body []byte
		want error
	}{
		"empty body":             {[]byte(""), status.ErrMalformed},
		"truncated JSON":         {fixture(t, "delivery")[:200], status.ErrMalformed},
		"not an object":          {[]byte(`["Delivery"]`), status.ErrMalformed},
		"JSON null":              {[]byte(`null`), status.ErrMalformed},
		"no eventType":           {edited(t, "delivery", func(m map[string]any) { delete(m, "eventType") }), status.ErrMalformed},
		"eventType not text":     {edited(t, "delivery", func(m map[string]any) { m["eventType"] = 7 }), status.ErrMalformed},
		"detail of wrong shape":  {edited(t, "delivery", func(m map[string]any) { m["delivery"] = "yes" }), status.ErrMalformed},
		"timestamp not a time":   {edited(t, "open", func(m map[string]any) { obj(t, m, "open")["timestamp"] = "yesterday" }), status.ErrMalformed},
		"SNS, malformed message": {sns(t, "Notification", []byte(`{"eventType":`)), status.ErrMalformed},
		// Only SES's own events are unwrapped from an EventBridge event.
		"EventBridge, another source": {eventBridge(t, "aws.ec2", fixture(t, "delivery")), status.ErrMalformed},
		// A subscription confirmation is not a notification: its body is
		// read as an SES event and has no eventType.
		"SNS subscription confirmation": {sns(t, "SubscriptionConfirmation", fixture(t, "delivery")), status.ErrMalformed},
		"eventType Subscription":        {edited(t, "delivery", setType("Subscription")), status.ErrUnknownType},
		"eventType Foo":                 {edited(t, "delivery", setType("Foo")), status.ErrUnknownType},
		"eventType in other case":       {edited(t, "delivery", setType("delivery")), status.ErrUnknownType},
		// A known type without its detail object cannot be applied either;
		// Parse reports it as an unknown (type, detail) pair.
		"Delivery without delivery": {edited(t, "delivery", func(m map[string]any) { delete(m, "delivery") }), status.ErrUnknownType},
		"Bounce without bounce":     {edited(t, "bounce-permanent", func(m map[string]any) { delete(m, "bounce") }), status.ErrUnknownType},
		"Click without click":       {edited(t, "click", func(m map[string]any) { delete(m, "click") }), status.ErrUnknownType},
		"Send without send":         {edited(t, "send", func(m map[string]any) { delete(m, "send") }), status.ErrUnknownType},
		"Open with a click detail":  {edited(t, "click", setType("Open")), status.ErrUnknownType},
		"no tags":                   {edited(t, "delivery", func(m map[string]any) { delete(obj(t, m, "mail"), "tags") }), status.ErrNoTags},
		"only SES tags": {edited(t, "delivery", tags(func(tg map[string]any) {
			delete(tg, "email_id")
			delete(tg, "workspace_id")
		})), status.ErrNoTags},
		"no workspace_id":        {edited(t, "delivery", tags(func(tg map[string]any) { delete(tg, "workspace_id") })), status.ErrNoTags},
		"no email_id":            {edited(t, "open", tags(func(tg map[string]any) { delete(tg, "email_id") })), status.ErrNoTags},
		"empty email_id list":    {edited(t, "click", tags(func(tg map[string]any) { tg["email_id"] = []string{} })), status.ErrNoTags},
		"empty workspace_id tag": {edited(t, "send", tags(func(tg map[string]any) { tg["workspace_id"] = []string{""} })), status.ErrNoTags},
	}
}

func TestParseRejects(t *testing.T) {
	for name, tc := range badBodies(t) {
		t.Run(name, func(t *testing.T) {
			ev, err := status.Parse(tc.body)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Parse error = %v, want %v", err, tc.want)
			}
			if !reflect.DeepEqual(ev, status.SESEvent{}) {
				t.Errorf("Parse returned %+v with its error, want the zero event", ev)
			}
		})
	}
}
