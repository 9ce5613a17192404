package campaign_test

import (
	"context"
	"errors"
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
