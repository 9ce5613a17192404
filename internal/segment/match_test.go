package segment_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/segment"
)

var now = time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)

func ptr(s string) *string { return &s }

// ann has every field set; bob has only what every contact has.
var (
	ann = contact.Contact{
		ID: "c1", Email: "ann.lee@acme.test", FirstName: ptr("Ann"), LastName: ptr("McLee"), Subscribed: true,
		Tags: []string{"vip", "beta"},
		Properties: map[string]contact.Property{
			"plan": contact.StringProperty("Pro"), "seats": contact.NumberProperty(3),
			"trial": contact.BoolProperty(true), "code": contact.StringProperty("1"),
		},
		CreatedAt: now.Add(-10 * 24 * time.Hour),
	}
	bob = contact.Contact{
		ID: "c2", Email: "bob@example.test", FirstName: ptr(""), Subscribed: false,
		CreatedAt: now.Add(-40 * 24 * time.Hour),
	}
)

func mustParse(t *testing.T, filter string) segment.Filter {
	t.Helper()
	f, err := segment.Parse(json.RawMessage(filter))
	if err != nil {
		t.Fatalf("Parse(%s): %v", filter, err)
	}
	return f
}

// one wraps a condition in an all group.
func one(cond string) string { return `{"all":[` + cond + `]}` }

func TestMatch(t *testing.T) {
	tests := map[string]struct {
		filter   string
		ann, bob bool
	}{
		// Strings compare case-insensitively.
		"email eq, other case":        {one(`{"field":"email","op":"eq","value":"Ann.Lee@ACME.test"}`), true, false},
		"email neq":                   {one(`{"field":"email","op":"neq","value":"ann.lee@acme.test"}`), false, true},
		"email ends_with":             {one(`{"field":"email","op":"ends_with","value":"@ACME.TEST"}`), true, false},
		"email starts_with":           {one(`{"field":"email","op":"starts_with","value":"bob@"}`), false, true},
		"email contains":              {one(`{"field":"email","op":"contains","value":".test"}`), true, true},
		"email in":                    {one(`{"field":"email","op":"in","value":["x@y.test","BOB@example.test"]}`), false, true},
		"first_name eq":               {one(`{"field":"first_name","op":"eq","value":"ann"}`), true, false},
		"last_name starts_with":       {one(`{"field":"last_name","op":"starts_with","value":"mc"}`), true, false},
		"last_name contains, unset":   {one(`{"field":"last_name","op":"contains","value":"e"}`), true, false},
		"first_name exists":           {one(`{"field":"first_name","op":"exists"}`), true, false},
		"first_name not_exists":       {one(`{"field":"first_name","op":"not_exists"}`), false, true},
		"last_name neq matches unset": {one(`{"field":"last_name","op":"neq","value":"McLee"}`), false, true},
		"subscribed eq true":          {one(`{"field":"subscribed","op":"eq","value":true}`), true, false},
		"subscribed neq true":         {one(`{"field":"subscribed","op":"neq","value":true}`), false, true},
		// Tags.
		"has_tag":        {one(`{"field":"tags","op":"has_tag","value":"vip"}`), true, false},
		"has_tag absent": {one(`{"field":"tags","op":"has_tag","value":"gold"}`), false, false},
		"tags exists":    {one(`{"field":"tags","op":"exists"}`), true, false},
		"tags none":      {one(`{"field":"tags","op":"not_exists"}`), false, true},
		// Properties: types never coerce; a missing one matches only neq
		// and not_exists.
		"property eq string":           {one(`{"field":"properties.plan","op":"eq","value":"pro"}`), true, false},
		"property eq number":           {one(`{"field":"properties.seats","op":"eq","value":3}`), true, false},
		"property eq bool":             {one(`{"field":"properties.trial","op":"eq","value":true}`), true, false},
		"string 1 is not number 1":     {one(`{"field":"properties.code","op":"eq","value":1}`), false, false},
		"number 3 is not string 3":     {one(`{"field":"properties.seats","op":"eq","value":"3"}`), false, false},
		"property neq":                 {one(`{"field":"properties.plan","op":"neq","value":"Pro"}`), false, true},
		"property neq other type":      {one(`{"field":"properties.seats","op":"neq","value":"3"}`), true, true},
		"property gt":                  {one(`{"field":"properties.seats","op":"gt","value":2}`), true, false},
		"property gt equal":            {one(`{"field":"properties.seats","op":"gt","value":3}`), false, false},
		"property gte":                 {one(`{"field":"properties.seats","op":"gte","value":3}`), true, false},
		"property lt":                  {one(`{"field":"properties.seats","op":"lt","value":3.5}`), true, false},
		"property lte":                 {one(`{"field":"properties.seats","op":"lte","value":2.9}`), false, false},
		"gt on a string property":      {one(`{"field":"properties.plan","op":"gt","value":0}`), false, false},
		"contains on a number":         {one(`{"field":"properties.seats","op":"contains","value":"3"}`), false, false},
		"property contains":            {one(`{"field":"properties.plan","op":"contains","value":"R"}`), true, false},
		"property ends_with":           {one(`{"field":"properties.plan","op":"ends_with","value":"o"}`), true, false},
		"property in mixed":            {one(`{"field":"properties.seats","op":"in","value":["3",3]}`), true, false},
		"property in misses":           {one(`{"field":"properties.plan","op":"in","value":["free",true]}`), false, false},
		"property exists":              {one(`{"field":"properties.trial","op":"exists"}`), true, false},
		"property not_exists":          {one(`{"field":"properties.trial","op":"not_exists"}`), false, true},
		"an unknown property is unset": {one(`{"field":"properties.nope","op":"eq","value":"x"}`), false, false},
		// created_at: instants, and days counted back from now.
		"created gt":          {one(`{"field":"created_at","op":"gt","value":"2026-02-20T00:00:00Z"}`), true, false},
		"created lt":          {one(`{"field":"created_at","op":"lt","value":"2026-02-20T00:00:00Z"}`), false, true},
		"created gte exact":   {one(`{"field":"created_at","op":"gte","value":"2026-03-05T12:00:00Z"}`), true, false},
		"created gt exact":    {one(`{"field":"created_at","op":"gt","value":"2026-03-05T12:00:00Z"}`), false, false},
		"created lte offset":  {one(`{"field":"created_at","op":"lte","value":"2026-03-05T14:00:00+02:00"}`), true, true},
		"within_days 10 edge": {one(`{"field":"created_at","op":"within_days","value":10}`), true, false},
		"within_days 9":       {one(`{"field":"created_at","op":"within_days","value":9}`), false, false},
		"older_than_days 10":  {one(`{"field":"created_at","op":"older_than_days","value":10}`), false, true},
		"older_than_days 9":   {one(`{"field":"created_at","op":"older_than_days","value":9}`), true, true},
		"older_than_days 40":  {one(`{"field":"created_at","op":"older_than_days","value":40}`), false, false},
		// Groups.
		"all of two": {`{"all":[{"field":"tags","op":"has_tag","value":"vip"},{"field":"properties.seats","op":"gt","value":5}]}`, false, false},
		"any of two": {`{"any":[{"field":"tags","op":"has_tag","value":"vip"},{"field":"subscribed","op":"eq","value":false}]}`, true, true},
		"not":        {`{"not":{"field":"tags","op":"has_tag","value":"vip"}}`, false, true},
		"not of any": {`{"not":{"any":[{"field":"email","op":"contains","value":"acme"},{"field":"email","op":"contains","value":"bob"}]}}`, false, false},
		"3 deep": {
			`{"all":[{"field":"email","op":"contains","value":"@"},{"any":[{"not":{"field":"subscribed","op":"eq","value":true}},{"field":"properties.plan","op":"eq","value":"pro"}]}]}`,
			true, true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := mustParse(t, tc.filter)
			if got := f.Match(ann, now); got != tc.ann {
				t.Errorf("ann: Match = %v, want %v", got, tc.ann)
			}
			if got := f.Match(bob, now); got != tc.bob {
				t.Errorf("bob: Match = %v, want %v", got, tc.bob)
			}
		})
	}
}

// A contact's match moves with the clock given, not the wall clock.
func TestMatchUsesTheGivenClock(t *testing.T) {
	f := mustParse(t, one(`{"field":"created_at","op":"within_days","value":30}`))
	if !f.Match(bob, now.Add(-15*24*time.Hour)) {
		t.Error("bob, 25 days old then, is not within 30 days")
	}
	if f.Match(bob, now) {
		t.Error("bob, 40 days old now, is within 30 days")
	}
}
