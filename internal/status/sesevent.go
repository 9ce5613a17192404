// Package status is the delivery pipeline's consumer of SES event
// notifications: it moves each email through its states (never backwards),
// appends to the events feed, records clicks, counts daily metrics and the
// monthly allowance, suppresses hard bounces and complaints, and hands
// events to the webhook fan-out.
package status

import (
	"encoding/json"
	"errors"
	"time"
)

// SESEvent is an SES event record as a configuration set publishes it
// (https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html).
type SESEvent struct {
	EventType     string         `json:"eventType"`
	Mail          Mail           `json:"mail"`
	Send          *struct{}      `json:"send,omitempty"`
	Delivery      *Delivery      `json:"delivery,omitempty"`
	Bounce        *Bounce        `json:"bounce,omitempty"`
	Complaint     *Complaint     `json:"complaint,omitempty"`
	Reject        *Reject        `json:"reject,omitempty"`
	Failure       *Failure       `json:"failure,omitempty"`
	DeliveryDelay *DeliveryDelay `json:"deliveryDelay,omitempty"`
	Open          *Open          `json:"open,omitempty"`
	Click         *Click         `json:"click,omitempty"`
}

// Mail is the message an event is about.
type Mail struct {
	Timestamp   time.Time           `json:"timestamp"`
	Source      string              `json:"source"`
	MessageID   string              `json:"messageId"`
	Destination []string            `json:"destination"`
	Tags        map[string][]string `json:"tags"`
}

// Recipient is one address an event names.
type Recipient struct {
	EmailAddress   string `json:"emailAddress"`
	Action         string `json:"action,omitempty"`
	Status         string `json:"status,omitempty"`
	DiagnosticCode string `json:"diagnosticCode,omitempty"`
}

type Delivery struct {
	Timestamp            time.Time `json:"timestamp"`
	ProcessingTimeMillis int       `json:"processingTimeMillis"`
	Recipients           []string  `json:"recipients"`
	SMTPResponse         string    `json:"smtpResponse"`
	ReportingMTA         string    `json:"reportingMTA"`
}

type Bounce struct {
	BounceType        string      `json:"bounceType"`
	BounceSubType     string      `json:"bounceSubType"`
	BouncedRecipients []Recipient `json:"bouncedRecipients"`
	Timestamp         time.Time   `json:"timestamp"`
	FeedbackID        string      `json:"feedbackId"`
	ReportingMTA      string      `json:"reportingMTA,omitempty"`
}

type Complaint struct {
	ComplainedRecipients  []Recipient `json:"complainedRecipients"`
	Timestamp             time.Time   `json:"timestamp"`
	FeedbackID            string      `json:"feedbackId"`
	UserAgent             string      `json:"userAgent,omitempty"`
	ComplaintFeedbackType string      `json:"complaintFeedbackType,omitempty"`
}

type Reject struct {
	Reason string `json:"reason"`
}

type Failure struct {
	ErrorMessage string `json:"errorMessage"`
	TemplateName string `json:"templateName"`
}

type DeliveryDelay struct {
	Timestamp         time.Time   `json:"timestamp"`
	DelayType         string      `json:"delayType"`
	ExpirationTime    time.Time   `json:"expirationTime"`
	DelayedRecipients []Recipient `json:"delayedRecipients"`
}

type Open struct {
	IPAddress string    `json:"ipAddress"`
	Timestamp time.Time `json:"timestamp"`
	UserAgent string    `json:"userAgent"`
}

type Click struct {
	IPAddress string              `json:"ipAddress"`
	Timestamp time.Time           `json:"timestamp"`
	UserAgent string              `json:"userAgent"`
	Link      string              `json:"link"`
	LinkTags  map[string][]string `json:"linkTags"`
}

// The event types SES publishes that the pipeline handles.
const (
	TypeSend             = "Send"
	TypeDelivery         = "Delivery"
	TypeBounce           = "Bounce"
	TypeComplaint        = "Complaint"
	TypeReject           = "Reject"
	TypeRenderingFailure = "Rendering Failure"
	TypeDeliveryDelay    = "DeliveryDelay"
	TypeOpen             = "Open"
	TypeClick            = "Click"
)

// Errors of parsing; the consumer drops such messages (retrying cannot help).
var (
	ErrMalformed   = errors.New("malformed SES event")
	ErrUnknownType = errors.New("unknown SES event type")
	ErrNoTags      = errors.New("SES event without Sesame tags")
)

// envelope is what may wrap an SES event on its way to the queue. The
// deployed path puts none there: SES publishes to an SNS topic whose
// subscription delivers raw messages, the SES record itself. An SNS
// notification (a subscription without raw delivery) and an EventBridge
// event (the deployed path before SNS; such messages may still be on the
// queue when a stack is updated) are unwrapped.
type envelope struct {
	Source  string          `json:"source"`
	Detail  json.RawMessage `json:"detail"`
	Type    string          `json:"Type"`
	Message string          `json:"Message"`
}

// Parse reads an SQS body holding an SES event, bare (as deployed) or
// inside an SNS notification or EventBridge event, and checks it carries what the
// pipeline needs.
func Parse(body []byte) (SESEvent, error) {
	var env envelope
	if json.Unmarshal(body, &env) == nil {
		switch {
		case env.Source == "aws.ses" && len(env.Detail) > 0:
			body = env.Detail
		case env.Type == "Notification" && env.Message != "":
			body = []byte(env.Message)
		}
	}
	var ev SESEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return SESEvent{}, ErrMalformed
	}
	if ev.EventType == "" {
		return SESEvent{}, ErrMalformed
	}
	if _, ok := ev.when(); !ok {
		return SESEvent{}, ErrUnknownType
	}
	if ev.Tag("workspace_id") == "" || ev.Tag("email_id") == "" {
		return SESEvent{}, ErrNoTags
	}
	return ev, nil
}

// Tag returns the first value of a message tag.
func (e SESEvent) Tag(name string) string {
	if v := e.Mail.Tags[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// when is the time of the event itself, and whether its type is known and
// its detail object present.
func (e SESEvent) when() (time.Time, bool) {
	switch {
	case e.EventType == TypeSend && e.Send != nil:
		return e.Mail.Timestamp, true
	case e.EventType == TypeDelivery && e.Delivery != nil:
		return e.Delivery.Timestamp, true
	case e.EventType == TypeBounce && e.Bounce != nil:
		return e.Bounce.Timestamp, true
	case e.EventType == TypeComplaint && e.Complaint != nil:
		return e.Complaint.Timestamp, true
	case e.EventType == TypeReject && e.Reject != nil:
		return e.Mail.Timestamp, true
	case e.EventType == TypeRenderingFailure && e.Failure != nil:
		return e.Mail.Timestamp, true
	case e.EventType == TypeDeliveryDelay && e.DeliveryDelay != nil:
		return e.DeliveryDelay.Timestamp, true
	case e.EventType == TypeOpen && e.Open != nil:
		return e.Open.Timestamp, true
	case e.EventType == TypeClick && e.Click != nil:
		return e.Click.Timestamp, true
	}
	return time.Time{}, false
}
