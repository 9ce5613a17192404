package suppression

import "github.com/sesame-mail/sesame/internal/timestamp"

// View is the Suppression object of the API (and of the console's JSON).
type View struct {
	Email     string  `json:"email"`
	Reason    Reason  `json:"reason"`
	EmailID   *string `json:"email_id"`
	CreatedAt string  `json:"created_at"`
}

// View renders s: email_id is null when no email caused it.
func (s Suppression) View() View {
	v := View{Email: s.Email, Reason: s.Reason, CreatedAt: timestamp.Format(s.CreatedAt)}
	if s.EmailID != "" {
		v.EmailID = &s.EmailID
	}
	return v
}
