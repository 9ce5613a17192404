package segment

import "github.com/sesame-mail/sesame/internal/timestamp"

// View is the Segment object of the API (and of the console's JSON).
type View struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Filter       Filter `json:"filter"`
	ContactCount int    `json:"contact_count"`
	CreatedAt    string `json:"created_at"`
}

// View renders s as the API's Segment object.
func (s Segment) View() View {
	return View{ID: s.ID, Name: s.Name, Filter: s.Filter, ContactCount: s.ContactCount, CreatedAt: timestamp.Format(s.CreatedAt)}
}
