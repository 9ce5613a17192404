package email

import "github.com/sesame-mail/sesame/internal/timestamp"

// View is the Email object of the API and of webhook events.
type View struct {
	ID               string       `json:"id"`
	To               string       `json:"to"`
	Subject          string       `json:"subject"`
	Status           Status       `json:"status"`
	Type             Type         `json:"type"`
	Environment      string       `json:"environment"`
	SentAt           string       `json:"sent_at"`
	DeliveredAt      *string      `json:"delivered_at"`
	OpenedAt         *string      `json:"opened_at"`
	ClickedAt        *string      `json:"clicked_at"`
	BouncedAt        *string      `json:"bounced_at"`
	ComplainedAt     *string      `json:"complained_at"`
	OpenTrackingMode TrackingMode `json:"open_tracking_mode"`
	Error            *string      `json:"error"`
	Tags             []Tag        `json:"tags"`
	ScheduledAt      *string      `json:"scheduled_at,omitempty"`
	Source           SourceView   `json:"source"`
}

// View renders e as the spec's Email object: ISO 8601 UTC times, null for
// what has not happened, full for legacy rows without a tracking mode, and
// error only on a failed email.
func (e Email) View() View {
	v := View{
		ID:               e.ID,
		To:               e.To,
		Subject:          e.Subject,
		Status:           e.Status,
		Type:             e.Type,
		Environment:      string(e.Environment),
		SentAt:           timestamp.Format(e.SentAt),
		DeliveredAt:      timestamp.Optional(e.DeliveredAt),
		OpenedAt:         timestamp.Optional(e.OpenedAt),
		ClickedAt:        timestamp.Optional(e.ClickedAt),
		BouncedAt:        timestamp.Optional(e.BouncedAt),
		ComplainedAt:     timestamp.Optional(e.ComplainedAt),
		OpenTrackingMode: e.TrackingMode,
		Tags:             e.Tags,
		ScheduledAt:      timestamp.Optional(e.ScheduledAt),
		Source:           SourceOf(e),
	}
	if v.Tags == nil {
		v.Tags = []Tag{}
	}
	if v.OpenTrackingMode == "" {
		v.OpenTrackingMode = TrackingFull
	}
	if e.Status == StatusFailed {
		msg := e.Error
		if msg == "" {
			msg = "send failed"
		}
		v.Error = &msg
	}
	return v
}
