package contact_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
)

func TestPatchCheckNamesTheParam(t *testing.T) {
	long := strings.Repeat("a", 65)
	nested := contact.StringProperty(strings.Repeat("x", 1001))
	ok := contact.StringProperty("pro")
	manyTags := make([]string, 51)
	for i := range manyTags {
		manyTags[i] = "t"
	}
	many := map[string]*contact.Property{}
	for i := range 51 {
		many[string(rune('a'+i%26))+strings.Repeat("b", i/26+1)] = &ok
	}
	for name, tc := range map[string]struct {
		p     contact.Patch
		param string
	}{
		"invalid email":      {contact.Patch{Email: new("not-an-email")}, "email"},
		"display name":       {contact.Patch{Email: new("Jane <jane@example.com>")}, "email"},
		"two addresses":      {contact.Patch{Email: new("a@example.com, b@example.com")}, "email"},
		"email of 321":       {contact.Patch{Email: new(strings.Repeat("a", 310) + "@example.com")}, "email"},
		"first name of 201":  {contact.Patch{FirstName: contact.Nullable[string]{Set: true, Value: new(strings.Repeat("é", 201))}}, "first_name"},
		"last name of 201":   {contact.Patch{LastName: contact.Nullable[string]{Set: true, Value: new(strings.Repeat("x", 201))}}, "last_name"},
		"first name, CRLF":   {contact.Patch{FirstName: contact.Nullable[string]{Set: true, Value: new("Ann\r\nBcc: x@example.com")}}, "first_name"},
		"last name, NUL":     {contact.Patch{LastName: contact.Nullable[string]{Set: true, Value: new("Lee\x00")}}, "last_name"},
		"last name, tab":     {contact.Patch{LastName: contact.Nullable[string]{Set: true, Value: new("Lee\tJr")}}, "last_name"},
		"first name, NEL":    {contact.Patch{FirstName: contact.Nullable[string]{Set: true, Value: new("Ann\u0085")}}, "first_name"},
		"51 tags":            {contact.Patch{Tags: &manyTags}, "tags"},
		"uppercase tag":      {contact.Patch{Tags: &[]string{"ok", "ok", "VIP"}}, "tags[2]"},
		"tag of 65":          {contact.Patch{Tags: &[]string{long}}, "tags[0]"},
		"empty tag":          {contact.Patch{Tags: &[]string{""}}, "tags[0]"},
		"51 properties":      {contact.Patch{Properties: many}, "properties"},
		"key with a dot":     {contact.Patch{Properties: map[string]*contact.Property{"a.b": &ok}}, "properties.a.b"},
		"key of 65":          {contact.Patch{Properties: map[string]*contact.Property{long: &ok}}, "properties." + long},
		"value of 1001":      {contact.Patch{Properties: map[string]*contact.Property{"plan": &nested}}, "properties.plan"},
		"uppercase property": {contact.Patch{Properties: map[string]*contact.Property{"Plan": &ok}}, "properties.Plan"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.p.Check()
			var fe *fail.Error
			if !errors.As(err, &fe) || fe.Kind != fail.KindInvalid || fe.Param != tc.param {
				t.Errorf("err = %v, want invalid %s", err, tc.param)
			}
		})
	}
}

func TestPatchCheckNormalizesEmail(t *testing.T) {
	p, err := contact.Patch{Email: new("  Jane.Doe@Example.COM ")}.Check()
	if err != nil || *p.Email != "jane.doe@example.com" {
		t.Errorf("email %q, err %v", *p.Email, err)
	}
}

func TestPatchApply(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	one, two := contact.NumberProperty(1), contact.BoolProperty(true)
	c, err := contact.New("ws", "id", contact.Patch{
		Email: new("a@example.com"), FirstName: contact.Nullable[string]{Set: true, Value: new("A")},
		Properties: map[string]*contact.Property{"one": &one},
	}, now)
	if err != nil || !c.Subscribed || c.UnsubscribedAt != nil || c.Tags == nil || *c.FirstName != "A" {
		t.Fatalf("new: %+v, %v", c, err)
	}
	later := now.Add(time.Hour)
	c, err = contact.Patch{
		FirstName: contact.Nullable[string]{Set: true}, Subscribed: new(false),
		Properties: map[string]*contact.Property{"one": nil, "two": &two},
	}.Apply(c, later)
	if err != nil || c.FirstName != nil || c.Subscribed || !c.UnsubscribedAt.Equal(later) ||
		len(c.Properties) != 1 || c.Properties["two"] != two || !c.UpdatedAt.Equal(later) || !c.CreatedAt.Equal(now) {
		t.Fatalf("apply: %+v, %v", c, err)
	}
	c, _ = contact.Patch{Subscribed: new(false)}.Apply(c, later.Add(time.Hour))
	if !c.UnsubscribedAt.Equal(later) {
		t.Errorf("a second unsubscribe moved unsubscribed_at to %v", c.UnsubscribedAt)
	}
	c, _ = contact.Patch{Subscribed: new(true)}.Apply(c, later)
	if !c.Subscribed || c.UnsubscribedAt != nil {
		t.Errorf("resubscribe: %+v", c)
	}
	full := map[string]*contact.Property{}
	for i := range 50 {
		full[strings.Repeat("k", i+1)] = &one
	}
	if _, err := (contact.Patch{Properties: full}).Apply(c, later); err == nil {
		t.Error("merging to 51 properties was accepted")
	}
}

// Tags added and removed as sets keep the tag cap of any update, and a set
// change that changes nothing says so, for the store to write nothing.
func TestPatchTagSets(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	fifty := make([]string, contact.MaxTags)
	for i := range fifty {
		fifty[i] = fmt.Sprintf("t%02d", i)
	}
	for name, tc := range map[string]struct {
		tags        []string
		add, remove []string
		want        []string
		unchanged   bool
		refused     bool
	}{
		"add and remove":         {tags: []string{"cold", "a"}, add: []string{"vip"}, remove: []string{"cold"}, want: []string{"a", "vip"}},
		"applied again":          {tags: []string{"a", "vip"}, add: []string{"vip"}, remove: []string{"cold"}, want: []string{"a", "vip"}, unchanged: true},
		"over the cap":           {tags: fifty, add: []string{"vip"}, refused: true},
		"at the cap, one swaps":  {tags: fifty, add: []string{"vip"}, remove: []string{"t00"}, want: append(slices.Clone(fifty[1:]), "vip")},
		"at the cap, one known":  {tags: fifty, add: []string{"t07"}, want: fifty, unchanged: true},
		"removes from no tags":   {remove: []string{"x"}, want: []string{}, unchanged: true},
		"adds to a contact none": {add: []string{"x"}, want: []string{"x"}},
	} {
		c := contact.Contact{ID: "c", Email: "a@example.com", Tags: tc.tags}
		p := contact.Patch{AddTags: tc.add, RemoveTags: tc.remove}
		got, err := p.Apply(c, now)
		if tc.refused {
			if f, ok := fail.As(err); !ok || f.Kind != fail.KindInvalid || f.Param != "tags" {
				t.Errorf("%s: err = %v, want invalid tags", name, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Tags, tc.want) || p.Unchanged(c, got) != tc.unchanged {
			t.Errorf("%s: tags %v unchanged %v, %v; want %v unchanged %v", name, got.Tags, p.Unchanged(c, got), err, tc.want, tc.unchanged)
		}
	}
	if (contact.Patch{}).Unchanged(contact.Contact{}, contact.Contact{}) {
		t.Error("an empty patch counts as a tag change that changed nothing")
	}
}
