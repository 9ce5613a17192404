package emailtemplate

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/mergetag"
	"github.com/sesame-mail/sesame/internal/review"
)

// Store keeps templates and their versions.
type Store interface {
	// CreateTemplate stores t as its version 1.
	CreateTemplate(ctx context.Context, t Template) error
	// GetTemplate reads version (0: the latest) of a template; a
	// fail.KindNotFound error when either is absent.
	GetTemplate(ctx context.Context, workspaceID, id string, version int) (Template, error)
	// ListTemplates reads a page of the latest versions, newest template
	// first, after the template id after.
	ListTemplates(ctx context.Context, workspaceID, after string, limit int) ([]Template, string, bool, error)
	// UpdateTemplate stores t, whose Version is one past the latest the
	// caller read: ErrMoved when another update came first. A version
	// whose subject and html did not change only renames the template.
	UpdateTemplate(ctx context.Context, t Template, newVersion bool) error
	// DeleteTemplate removes a template and its versions.
	DeleteTemplate(ctx context.Context, workspaceID, id string) error
}

// ErrMoved is UpdateTemplate's answer when the template changed since it
// was read.
var ErrMoved = errors.New("the template changed since it was read")

// Reviewer runs the security review on a layout when a version is saved,
// as a send's hold would on its first send, and tells where a layout is.
// The send route and the template routes share its verdicts.
type Reviewer interface {
	ReviewLayout(ctx context.Context, workspaceID, html string) (Review, error)
	LayoutReview(ctx context.Context, workspaceID, fingerprint string) (Review, error)
}

// ContactReader finds the recipient's contact record (nil: a send reads
// no contact variables but their fallbacks).
type ContactReader interface {
	GetContactByEmail(ctx context.Context, workspaceID, email string) (contact.Contact, error)
}

// Service holds the rules of stored templates, for the API, the dashboard
// and the send route alike.
type Service struct {
	Store    Store
	Reviewer Reviewer
	Contacts ContactReader
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Version is a template version with its review.
type Version struct {
	Template
	Review Review
}

// Create stores a new template, reviews its layout and returns it.
func (s *Service) Create(ctx context.Context, workspaceID string, in Input) (Version, error) {
	if err := in.check(true); err != nil {
		return Version{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Version{}, err
	}
	now := s.now()
	t, _ := Template{ID: id.String(), WorkspaceID: workspaceID, Version: 1, CreatedAt: now, UpdatedAt: now}.apply(in)
	t.Fingerprint = review.Fingerprint(t.HTML)
	rv, err := s.Reviewer.ReviewLayout(ctx, workspaceID, t.HTML)
	if err != nil {
		return Version{}, err
	}
	if err := s.Store.CreateTemplate(ctx, t); err != nil {
		return Version{}, err
	}
	return Version{Template: t, Review: rv}, nil
}

// Get reads version (0: the latest) of a template with its review.
func (s *Service) Get(ctx context.Context, workspaceID, id string, version int) (Version, error) {
	t, err := s.Store.GetTemplate(ctx, workspaceID, id, version)
	if err != nil {
		return Version{}, err
	}
	rv, err := s.Review(ctx, workspaceID, t)
	if err != nil {
		return Version{}, err
	}
	return Version{Template: t, Review: rv}, nil
}

// Review reads where version t's layout is in the security review.
func (s *Service) Review(ctx context.Context, workspaceID string, t Template) (Review, error) {
	return s.Reviewer.LayoutReview(ctx, workspaceID, t.Fingerprint)
}

// List reads a page of templates, each at its latest version.
func (s *Service) List(ctx context.Context, workspaceID, after string, limit int) ([]Template, string, bool, error) {
	return s.Store.ListTemplates(ctx, workspaceID, after, limit)
}

// Update applies in to the latest version: a new subject or html is a new
// version, reviewed now; a new name alone renames the template.
func (s *Service) Update(ctx context.Context, workspaceID, id string, in Input) (Version, error) {
	if err := in.check(false); err != nil {
		return Version{}, err
	}
	for attempt := 0; ; attempt++ {
		cur, err := s.Store.GetTemplate(ctx, workspaceID, id, 0)
		if err != nil {
			return Version{}, err
		}
		t, changed := cur.apply(in)
		if changed {
			t.Version, t.UpdatedAt, t.Fingerprint = cur.Version+1, s.now(), review.Fingerprint(t.HTML)
		}
		rv, err := s.Reviewer.ReviewLayout(ctx, workspaceID, t.HTML)
		if err != nil {
			return Version{}, err
		}
		err = s.Store.UpdateTemplate(ctx, t, changed)
		if errors.Is(err, ErrMoved) && attempt < 3 {
			continue
		}
		if errors.Is(err, ErrMoved) {
			return Version{}, fail.Errorf(fail.KindConflict, "", "", "the template is being changed by another request; retry")
		}
		if err != nil {
			return Version{}, err
		}
		return Version{Template: t, Review: rv}, nil
	}
}

// Delete removes a template; emails sent with it keep their content.
func (s *Service) Delete(ctx context.Context, workspaceID, id string) error {
	return s.Store.DeleteTemplate(ctx, workspaceID, id)
}

// Rendered is a template version rendered for one send.
type Rendered struct {
	Subject, HTML string
	Version       int
}

// Render renders the latest version of template id for a send to to,
// with the send's variables: each is text, never markup. A data variable
// the template reads without a fallback must be given (invalid_field
// naming it); a template that is not there is invalid_field on
// template_id, as the send's other references are.
func (s *Service) Render(ctx context.Context, workspaceID, id, to string, vars map[string]string) (Rendered, error) {
	t, err := s.Store.GetTemplate(ctx, workspaceID, id, 0)
	if fail.KindOf(err) == fail.KindNotFound {
		return Rendered{}, fail.Invalid("template_id", "no template %s in this workspace", id)
	}
	if err != nil {
		return Rendered{}, err
	}
	subject, err := mergetag.Parse(t.Subject, scope)
	if err != nil {
		return Rendered{}, err // parsed when saved: a stored version that no longer parses is ours
	}
	html, err := mergetag.Parse(t.HTML, scope)
	if err != nil {
		return Rendered{}, err
	}
	for _, k := range append(subject.Missing(vars), html.Missing(vars)...) {
		return Rendered{}, fail.Invalid("variables."+k, "the template reads {{ data.%s }} with no fallback: give variables.%s", k, k)
	}
	v := mergetag.Vars{Data: vars}
	if s.Contacts != nil && (subject.Contacts() || html.Contacts()) {
		c, err := s.Contacts.GetContactByEmail(ctx, workspaceID, to)
		switch {
		case err == nil:
			v = mergetag.ContactVars(c)
			v.Data = vars
		case fail.KindOf(err) != fail.KindNotFound && !errors.Is(err, contact.ErrNotFound):
			return Rendered{}, err
		}
	}
	out := Rendered{Subject: strings.TrimSpace(subject.Subject(v)), HTML: html.HTML(v), Version: t.Version}
	if out.Subject == "" {
		return Rendered{}, fail.Invalid("variables", "the template's subject renders empty with these variables")
	}
	if err := email.CheckSubject(out.Subject); err != nil {
		return Rendered{}, fail.Invalid("variables", "the template's subject with these variables: %s", err)
	}
	return out, nil
}

// Sample is a version rendered for the owner to look at: each data
// variable shows as its name in brackets ([order]), the contact variables
// as contact.Sample's.
func (t Template) Sample() (subject, html string) {
	v := mergetag.ContactVars(contact.Sample)
	v.Data = map[string]string{}
	for _, k := range t.Variables() {
		v.Data[k] = "[" + k + "]"
	}
	subj, _ := mergetag.Parse(t.Subject, scope) // parsed when saved
	body, _ := mergetag.Parse(t.HTML, scope)
	return subj.Subject(v), body.HTML(v)
}
