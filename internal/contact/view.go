package contact

import "github.com/sesame-mail/sesame/internal/timestamp"

// View is the Contact object of the API: every field present, null for an
// unset name or a contact never unsubscribed.
type View struct {
	ID             string              `json:"id"`
	Email          string              `json:"email"`
	FirstName      *string             `json:"first_name"`
	LastName       *string             `json:"last_name"`
	Subscribed     bool                `json:"subscribed"`
	UnsubscribedAt *string             `json:"unsubscribed_at"`
	Tags           []string            `json:"tags"`
	Properties     map[string]Property `json:"properties"`
	CreatedAt      string              `json:"created_at"`
	UpdatedAt      string              `json:"updated_at"`
}

// View renders c as the API's Contact object.
func (c Contact) View() View {
	v := View{
		ID: c.ID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName, Subscribed: c.Subscribed,
		UnsubscribedAt: timestamp.Optional(c.UnsubscribedAt), Tags: c.Tags, Properties: c.Properties,
		CreatedAt: timestamp.Format(c.CreatedAt), UpdatedAt: timestamp.Format(c.UpdatedAt),
	}
	if v.Tags == nil {
		v.Tags = []string{}
	}
	if v.Properties == nil {
		v.Properties = map[string]Property{}
	}
	return v
}
