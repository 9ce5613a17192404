package contact

import (
	"maps"
	"slices"
	"time"
)

// Nullable is a field of a partial change that may be absent (unchanged),
// null (cleared) or a value.
type Nullable[T any] struct {
	Set   bool
	Value *T // nil when Set clears the field
}

// Patch is a change to a contact: a create sets the fields it has on a new
// contact, an update changes only those. A nil field is unchanged.
type Patch struct {
	Email      *string
	FirstName  Nullable[string]
	LastName   Nullable[string]
	Subscribed *bool
	Tags       *[]string // replaces the tags
	// AddTags and RemoveTags change the tags as sets, after Tags: an
	// automation's tag step, which applied twice changes nothing.
	AddTags, RemoveTags []string
	// Properties merge into the contact's: a nil value removes the key.
	Properties map[string]*Property
}

// Apply returns c changed by p at now. Unsubscribing records when; a
// resubscribe clears it. The merged properties are checked against the cap.
func (p Patch) Apply(c Contact, now time.Time) (Contact, error) {
	if p.Email != nil {
		c.Email = *p.Email
	}
	if p.FirstName.Set {
		c.FirstName = p.FirstName.Value
	}
	if p.LastName.Set {
		c.LastName = p.LastName.Value
	}
	if p.Subscribed != nil && *p.Subscribed != c.Subscribed {
		c.Subscribed = *p.Subscribed
		c.UnsubscribedAt = nil
		if !c.Subscribed {
			at := now.UTC()
			c.UnsubscribedAt = &at
		}
	}
	if p.Tags != nil {
		c.Tags = slices.Clone(*p.Tags)
	}
	if p.AddTags != nil || p.RemoveTags != nil {
		c.Tags = tagsAfter(c.Tags, p.AddTags, p.RemoveTags)
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if p.changesTags() && len(c.Tags) > MaxTags {
		return Contact{}, errTooManyTags()
	}
	if len(p.Properties) > 0 {
		props := maps.Clone(c.Properties)
		if props == nil {
			props = map[string]Property{}
		}
		for k, v := range p.Properties {
			if v == nil {
				delete(props, k)
			} else {
				props[k] = *v
			}
		}
		if len(props) > MaxProperties {
			return Contact{}, errTooManyProperties()
		}
		c.Properties = props
	}
	if c.Properties == nil {
		c.Properties = map[string]Property{}
	}
	c.UpdatedAt = now.UTC()
	return c, nil
}

// Unchanged reports whether p, a change of tags as sets, left them as
// they were in before: then nothing is written, so a retried tag step
// changes nothing, not even updated_at.
func (p Patch) Unchanged(before, after Contact) bool {
	setsOnly := (p.AddTags != nil || p.RemoveTags != nil) && p.Email == nil && !p.FirstName.Set && !p.LastName.Set && p.Subscribed == nil && p.Tags == nil && p.Properties == nil
	return setsOnly && slices.Equal(before.Tags, after.Tags)
}

func (p Patch) changesTags() bool {
	return p.Tags != nil || p.AddTags != nil || p.RemoveTags != nil
}

// tagsAfter is tags with add added and remove removed, as sets: in the
// order they came, each once.
func tagsAfter(tags, add, remove []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, r := range remove {
		seen[r] = true
	}
	for _, t := range append(slices.Clone(tags), add...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// New is the contact p creates with id at now: subscribed unless p says
// otherwise. p must hold an email (Check).
func New(workspaceID, id string, p Patch, now time.Time) (Contact, error) {
	c := Contact{ID: id, WorkspaceID: workspaceID, Subscribed: true, CreatedAt: now.UTC()}
	return p.Apply(c, now)
}
