package campaign_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// The draft's body rules, in the spec's order, each naming its field.
func TestDraftRequestValidate(t *testing.T) {
	s := func(v string) *string { return &v }
	id := "0193B4E7-C1A7-7D2E-9F3A-4B5C6D7E8F90"
	cases := map[string]struct {
		req         campaign.DraftRequest
		kind        fail.Kind
		param       string
		wantSegment string
	}{
		"ok, id lowercased": {campaign.DraftRequest{SegmentID: s(id), Subject: s("Hi"), HTML: s("<p>x</p>")}, 0, "", "0193b4e7-c1a7-7d2e-9f3a-4b5c6d7e8f90"},
		"no segment_id":     {campaign.DraftRequest{Subject: s("Hi"), HTML: s("x")}, fail.KindMissing, "segment_id", ""},
		"no subject":        {campaign.DraftRequest{SegmentID: s(id), HTML: s("x")}, fail.KindMissing, "subject", ""},
		"no html":           {campaign.DraftRequest{SegmentID: s(id), Subject: s("Hi")}, fail.KindMissing, "html", ""},
		"urn uuid":          {campaign.DraftRequest{SegmentID: s("urn:uuid:" + id), Subject: s("Hi"), HTML: s("x")}, fail.KindInvalid, "segment_id", ""},
		"blank subject":     {campaign.DraftRequest{SegmentID: s(id), Subject: s(" "), HTML: s("x")}, fail.KindInvalid, "subject", ""},
		"tab in subject":    {campaign.DraftRequest{SegmentID: s(id), Subject: s("a\tb"), HTML: s("x")}, fail.KindInvalid, "subject", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.req.Validate()
			if tc.param == "" {
				if err != nil || *tc.req.SegmentID != tc.wantSegment {
					t.Errorf("err %v, segment_id %q", err, *tc.req.SegmentID)
				}
				return
			}
			e, ok := fail.As(err)
			if !ok || e.Kind != tc.kind || e.Param != tc.param {
				t.Errorf("err = %v, want %s on %s", err, tc.kind, tc.param)
			}
		})
	}
}

// A merge tag the language refuses is refused at draft and at edit, on
// the field that holds it, naming where; contact variables render.
func TestCheckContentMergeTags(t *testing.T) {
	ok := []struct{ subject, html string }{
		{`Hi {{ contact.first_name | "there" }}`, `<p>{{ contact.last_name }} {{ contact.email }} {{ contact.properties.plan | "free" }}</p>`},
		{`No tags`, `<p>{{contact.first_name}}</p>`},
		{`{{ contact.first_name | "Hello" }}`, `<p>x</p>`},
		{`{{ contact.email }}`, `<p>x</p>`},
	}
	for _, c := range ok {
		if err := campaign.CheckContent(c.subject, c.html); err != nil {
			t.Errorf("CheckContent(%q, %q) = %v", c.subject, c.html, err)
		}
	}
	for _, c := range []struct{ subject, html, param, says string }{
		{`Hi {{ contact.nickname }}`, `<p>x</p>`, "subject", `subject: line 1, column 4: unknown variable "contact.nickname"`},
		{`Hi {{ event.total }}`, `<p>x</p>`, "subject", `unknown variable "event.total"`},
		{`Hi`, "<p>\n  {{ contact.first_name | there }}</p>", "html", `html: line 2, column 3: {{ contact.first_name | there }}: a fallback is text in double quotes`},
		{`Hi`, `<p>Hello {{ contact.first_name</p>`, "html", `html: line 1, column 10:`},
		{` {{ contact.first_name }} {{ contact.last_name }}`, `<p>x</p>`, "subject", `subject would be blank for a recipient without a name`},
		{`{{ contact.properties.plan | "" }}`, `<p>x</p>`, "subject", `subject would be blank`},
	} {
		err := campaign.CheckContent(c.subject, c.html)
		e, isFail := fail.As(err)
		if !isFail || e.Kind != fail.KindInvalid || e.Param != c.param || !strings.Contains(fail.MessageOf(err), c.says) {
			t.Errorf("CheckContent(%q, %q) = %v, want invalid %s saying %q", c.subject, c.html, err, c.param, c.says)
		}
	}
}

// A deliverability check that fails, by error or by panic, leaves the
// verdict null and the draft standing.
func TestVerdictOfAFailingCheck(t *testing.T) {
	for name, check := range map[string]campaign.Checker{
		"error": func(string, string, identity.Sender, workspace.Workspace) (campaign.Verdict, error) {
			return nil, errors.New("down")
		},
		"panic": func(string, string, identity.Sender, workspace.Workspace) (campaign.Verdict, error) { panic("bug") },
	} {
		t.Run(name, func(t *testing.T) {
			d := &campaign.Drafts{Check: check}
			if v := campaign.VerdictOf(d, context.Background(), campaign.Campaign{ID: "c"}); v != nil {
				t.Errorf("verdict %s, want null", v)
			}
		})
	}
}
