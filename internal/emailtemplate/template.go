// Package emailtemplate is a workspace's stored templates: a name, a
// subject and an html in Sesame's template language (internal/mergetag),
// versioned, each version reviewed by the security review when it is
// saved, so that a send of a cleared version goes out at once instead of
// being held on its layout's first send.
package emailtemplate

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/mergetag"
)

// Limits of a template and of a send's variables.
const (
	MaxName          = 100       // characters
	MaxHTML          = 512 << 10 // bytes, as the send route's html
	MaxVariables     = 100
	MaxVariableValue = 10_000 // characters
)

// scope is what a stored template may read: the send's variables, and
// the recipient's contact record where there is one.
const scope = mergetag.Data | mergetag.Contact

// Template is one version of a stored template.
type Template struct {
	ID          string
	WorkspaceID string
	Name        string
	Subject     string
	HTML        string
	Version     int
	// Fingerprint is the layout the security review decides on
	// (review.Fingerprint of HTML).
	Fingerprint string
	CreatedAt   time.Time // of the template
	UpdatedAt   time.Time // of this version
}

// ReviewState is where a version's layout is in the security review.
type ReviewState string

const (
	ReviewPending ReviewState = "pending"
	ReviewCleared ReviewState = "cleared"
	ReviewDenied  ReviewState = "denied"
)

// Review is the security review's verdict on a version's layout.
type Review struct {
	State   ReviewState `json:"state"`
	Reasons []string    `json:"reasons,omitempty"`
}

// Input is the body of POST (every field) and PATCH (any of them).
type Input struct {
	Name    *string `json:"name"`
	Subject *string `json:"subject"`
	HTML    *string `json:"html"`
}

// check validates the fields in; create needs them all.
func (in Input) check(create bool) error {
	if create {
		switch {
		case in.Name == nil:
			return fail.Missing("name")
		case in.Subject == nil:
			return fail.Missing("subject")
		case in.HTML == nil:
			return fail.Missing("html")
		}
	} else if in.Name == nil && in.Subject == nil && in.HTML == nil {
		return fail.Invalid("", "give at least one of name, subject and html")
	}
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		switch {
		case n == "":
			return fail.Invalid("name", "name must not be empty")
		case utf8.RuneCountInString(n) > MaxName:
			return fail.Invalid("name", "name must be at most %d characters", MaxName)
		case strings.ContainsFunc(n, unicode.IsControl):
			return fail.Invalid("name", "name must not contain control characters")
		}
	}
	if in.Subject != nil {
		if *in.Subject == "" {
			return fail.Invalid("subject", "subject must not be empty")
		}
		if err := email.CheckSubject(*in.Subject); err != nil {
			return fail.Invalid("subject", "%s", err)
		}
		if err := checkText("subject", *in.Subject); err != nil {
			return err
		}
	}
	if in.HTML != nil {
		switch {
		case strings.TrimSpace(*in.HTML) == "":
			return fail.Invalid("html", "html must not be empty")
		case len(*in.HTML) > MaxHTML:
			return fail.Errorf(fail.KindTooLarge, "", "html", "html must be at most %d KB", MaxHTML>>10)
		case !utf8.ValidString(*in.HTML):
			return fail.Invalid("html", "html must be valid UTF-8")
		}
		if err := checkText("html", *in.HTML); err != nil {
			return err
		}
	}
	return nil
}

// checkText parses a subject or an html in the template language: a
// contact variable needs a fallback (a recipient may be no contact, or
// lack the field), a data variable is given by each send.
func checkText(param, s string) error {
	t, err := mergetag.Parse(s, scope)
	if err != nil {
		return fail.Invalid(param, "%s: %s", param, err)
	}
	for _, v := range t.Bare() {
		if strings.HasPrefix(v, "contact.") {
			return fail.Invalid(param, "%s: {{ %s }} needs a fallback, {{ %s | \"…\" }}: a recipient may not be a contact, or may lack it", param, v, v)
		}
	}
	return nil
}

// apply is t with in's fields set; changed reports whether the subject or
// the html changed (a new version).
func (t Template) apply(in Input) (out Template, changed bool) {
	out = t
	if in.Name != nil {
		out.Name = strings.TrimSpace(*in.Name)
	}
	if in.Subject != nil && *in.Subject != t.Subject {
		out.Subject, changed = *in.Subject, true
	}
	if in.HTML != nil && *in.HTML != t.HTML {
		out.HTML, changed = *in.HTML, true
	}
	return out, changed
}

// Variables lists the data variables t reads, sorted, each once.
func (t Template) Variables() []string {
	seen := map[string]bool{}
	out := []string{} // never null in an answer
	for _, s := range []string{t.Subject, t.HTML} {
		parsed, err := mergetag.Parse(s, scope)
		if err != nil {
			continue // stored versions were parsed when saved
		}
		for _, v := range parsed.DataKeys() {
			seen[v] = true
		}
	}
	return append(out, slices.Sorted(maps.Keys(seen))...)
}

// CheckVariables checks a send's variables: keys as the template
// language names them, values text of bounded length.
func CheckVariables(vars map[string]string) error {
	if len(vars) > MaxVariables {
		return fail.Invalid("variables", "variables takes at most %d entries", MaxVariables)
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		if !mergetag.IsKey(k) {
			return fail.Invalid("variables."+k, "a variable name is 1 to 100 characters of letters, digits, _ and -")
		}
		v := vars[k]
		switch {
		case !utf8.ValidString(v):
			return fail.Invalid("variables."+k, "a variable's value must be valid UTF-8")
		case utf8.RuneCountInString(v) > MaxVariableValue:
			return fail.Invalid("variables."+k, "a variable's value must be at most %d characters", MaxVariableValue)
		}
	}
	return nil
}
