package automation

import (
	"fmt"

	"github.com/sesame-mail/sesame/internal/timestamp"
)

// View is an automation as the owner's surfaces show it (the console's
// JSON, the dashboard).
type View struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Event     string `json:"event"`
	Status    Status `json:"status"`
	Version   int    `json:"version"`
	Steps     []Step `json:"steps"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// View renders a as the owner sees it.
func (a Automation) View() View {
	return View{
		ID: a.ID, Name: a.Name, Event: a.Event, Status: a.Status, Version: a.Version, Steps: a.Steps,
		CreatedAt: timestamp.Format(a.CreatedAt), UpdatedAt: timestamp.Format(a.UpdatedAt),
	}
}

// Summary is one line saying what s does.
func (s Step) Summary() string {
	switch s.Type {
	case StepSend:
		from := "the default sender"
		if s.SenderID != "" {
			from = "sender " + s.SenderID
		}
		return fmt.Sprintf("send %q from %s", s.Subject, from)
	case StepWait:
		return "wait " + s.Duration.String()
	case StepTag:
		out := "tag"
		for _, t := range s.Add {
			out += " +" + t
		}
		for _, t := range s.Remove {
			out += " -" + t
		}
		return out
	}
	return string(s.Type)
}
