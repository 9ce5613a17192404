package automation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/mergetag"
)

// Limits of a definition.
const (
	MaxName  = 100 // characters
	MaxSteps = 20
	// MaxHTMLBytes is one send step's html, as a campaign's.
	MaxHTMLBytes = 256 << 10
	// MaxStepsBytes is all the steps as JSON: the automation item and each
	// kept version hold them whole, and a DynamoDB item holds 400 KB.
	MaxStepsBytes = 350 << 10
	// MaxTagsPerStep is a tag step's add and remove together.
	MaxTagsPerStep = 20
)

// ErrEventFull refuses to activate an automation on an event name that
// MaxActivePerEvent active automations listen for already.
var ErrEventFull = fmt.Errorf("%d active automations listen for this event already; deactivate one first", MaxActivePerEvent)

// Definition is what the owner writes: a name, the event it listens for
// and its steps. A blueprint is one, a file holds one.
type Definition struct {
	Name  string `json:"name"`
	Event string `json:"event"`
	Steps []Step `json:"steps"`
}

// Definition is the automation's name, event and current steps.
func (a Automation) Definition() Definition {
	return Definition{Name: a.Name, Event: a.Event, Steps: a.Steps}
}

// ParseDefinition reads a definition written as JSON; a field the
// definition lacks is refused, so a typo does not vanish.
func ParseDefinition(b []byte) (Definition, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Definition
	if err := dec.Decode(&d); err != nil {
		return Definition{}, fmt.Errorf("not an automation definition ({\"name\", \"event\", \"steps\": [...]}): %w", err)
	}
	if dec.More() {
		return Definition{}, fmt.Errorf("not an automation definition: more than one JSON value")
	}
	return d, nil
}

// Problem is one thing wrong with a definition: where (a JSON path such
// as steps[2].html) and why.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Problems are everything wrong with a definition, reported at once so
// the owner fixes them in one pass.
type Problems []Problem

func (p Problems) Error() string {
	lines := make([]string, 0, len(p))
	for _, x := range p {
		lines = append(lines, x.Path+": "+x.Message)
	}
	return strings.Join(lines, "\n")
}

// Err is p as an error, nil when there is no problem.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return p
}

func (p *Problems) add(path, format string, args ...any) {
	*p = append(*p, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// Check reports what is wrong with d as a definition, what even a draft
// must be: a name, an event name, 1 to MaxSteps steps, each complete
// and within its limits.
func (d Definition) Check() Problems {
	var p Problems
	switch n := utf8.RuneCountInString(d.Name); {
	case strings.TrimSpace(d.Name) == "":
		p.add("name", "is required")
	case n > MaxName:
		p.add("name", "has %d characters; at most %d", n, MaxName)
	}
	if err := CheckEventName(d.Event); err != nil {
		p.add("event", "%s", err)
	}
	switch {
	case len(d.Steps) == 0:
		p.add("steps", "an automation has at least one step")
	case len(d.Steps) > MaxSteps:
		p.add("steps", "an automation has at most %d steps, not %d", MaxSteps, len(d.Steps))
	}
	for i, s := range d.Steps {
		s.check(fmt.Sprintf("steps[%d]", i), &p)
	}
	if b, err := json.Marshal(d.Steps); err == nil && len(b) > MaxStepsBytes {
		p.add("steps", "the steps are %d bytes of JSON; together at most %d (350 KB)", len(b), MaxStepsBytes)
	}
	return p
}

// CheckActivation reports what keeps d from receiving events beyond
// Check: content some run could not render (checkContent). The sender
// is the owner service's to check, as it reads the workspace.
func (d Definition) CheckActivation() Problems {
	p := d.Check()
	for i, s := range d.Steps {
		if s.Type != StepSend {
			continue
		}
		if err := checkContent(s.Subject); err != nil {
			p.add(fmt.Sprintf("steps[%d].subject", i), "%s", err)
		}
		if err := checkContent(s.HTML); err != nil {
			p.add(fmt.Sprintf("steps[%d].html", i), "%s", err)
		}
	}
	return p
}

// check adds what is wrong with step s, at path, to p.
func (s Step) check(path string, p *Problems) {
	send := s.Subject != "" || s.HTML != "" || s.SenderID != ""
	wait := s.Duration != 0
	tag := len(s.Add) > 0 || len(s.Remove) > 0
	extra := map[StepType]bool{StepSend: wait || tag, StepWait: send || tag, StepTag: send || wait}
	switch s.Type {
	case StepSend:
		s.checkSend(path, p)
	case StepWait:
		if d := time.Duration(s.Duration); d < MinWait || d > MaxWait {
			p.add(path+".duration", "a wait is 1m to 90d, not %s", s.Duration)
		}
	case StepTag:
		s.checkTag(path, p)
	default:
		p.add(path+".type", "a step is send, wait or tag, not %q", s.Type)
		return
	}
	if extra[s.Type] {
		p.add(path, "a %s step has only its own fields (send: subject, html, sender_id; wait: duration; tag: add, remove)", s.Type)
	}
}

func (s Step) checkSend(path string, p *Problems) {
	if strings.TrimSpace(s.Subject) == "" {
		p.add(path+".subject", "is required")
	} else if err := email.CheckSubject(s.Subject); err != nil {
		p.add(path+".subject", "%s", err)
	}
	switch {
	case strings.TrimSpace(s.HTML) == "":
		p.add(path+".html", "is required")
	case len(s.HTML) > MaxHTMLBytes:
		p.add(path+".html", "is %d bytes; at most %d (256 KB)", len(s.HTML), MaxHTMLBytes)
	}
}

func (s Step) checkTag(path string, p *Problems) {
	if n := len(s.Add) + len(s.Remove); n == 0 {
		p.add(path, "a tag step adds or removes at least one tag")
	} else if n > MaxTagsPerStep {
		p.add(path, "a tag step names at most %d tags, not %d", MaxTagsPerStep, n)
	}
	for i, t := range s.Add {
		checkTagName(fmt.Sprintf("%s.add[%d]", path, i), t, p)
	}
	for i, t := range s.Remove {
		checkTagName(fmt.Sprintf("%s.remove[%d]", path, i), t, p)
	}
	for _, t := range s.Add {
		if slices.Contains(s.Remove, t) {
			p.add(path, "tag %q is both added and removed", t)
		}
	}
}

func checkTagName(path, tag string, p *Problems) {
	if !contact.ValidTag(tag) {
		p.add(path, "a tag is 1 to %d characters of a-z, 0-9, _ and -, not %q", contact.MaxTag, tag)
	}
}

// checkContent reports why a text would not render for every run: a
// variable it cannot read, or one that some run may lack and that has
// no fallback.
func checkContent(s string) error {
	t, err := mergetag.Parse(s, mergetag.Contact|mergetag.Event)
	if err != nil {
		return err
	}
	if bare := t.Bare(); len(bare) > 0 {
		return fmt.Errorf("{{ %s }} has no fallback, and a run may lack it: write {{ %s | \"…\" }}", bare[0], bare[0])
	}
	return nil
}
