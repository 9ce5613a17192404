package email

import (
	"time"

	"github.com/sesame-mail/sesame/internal/httpapi"
)

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
		SentAt:           formatTime(e.SentAt),
		DeliveredAt:      optionalTime(e.DeliveredAt),
		OpenedAt:         optionalTime(e.OpenedAt),
		ClickedAt:        optionalTime(e.ClickedAt),
		BouncedAt:        optionalTime(e.BouncedAt),
		ComplainedAt:     optionalTime(e.ComplainedAt),
		OpenTrackingMode: e.TrackingMode,
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

func formatTime(t time.Time) string { return httpapi.Timestamp(t) }

func optionalTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}
