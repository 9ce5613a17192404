package campaign_test

import (
	"context"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// A suggestion's body is read as a draft's, then sender_id.
func TestSuggestRequestValidate(t *testing.T) {
	s := func(v string) *string { return &v }
	seg, sender := "0193B4E7-C1A7-7D2E-9F3A-4B5C6D7E8F90", "0193B4E7-C1A7-7D2E-9F3A-4B5C6D7E8F91"
	cases := map[string]struct {
		req        campaign.SuggestRequest
		kind       fail.Kind
		param      string
		wantSender string
	}{
		"ok, ids lowercased":  {campaign.SuggestRequest{SegmentID: s(seg), Subject: s("Hi"), HTML: s("<p>x</p>"), SenderID: s(sender)}, 0, "", "0193b4e7-c1a7-7d2e-9f3a-4b5c6d7e8f91"},
		"ok, default sender":  {campaign.SuggestRequest{SegmentID: s(seg), Subject: s("Hi"), HTML: s("<p>x</p>")}, 0, "", ""},
		"no html":             {campaign.SuggestRequest{SegmentID: s(seg), Subject: s("Hi")}, fail.KindMissing, "html", ""},
		"merge tag refused":   {campaign.SuggestRequest{SegmentID: s(seg), Subject: s("Hi"), HTML: s("{{ event.x }}")}, fail.KindInvalid, "html", ""},
		"sender an address":   {campaign.SuggestRequest{SegmentID: s(seg), Subject: s("Hi"), HTML: s("x"), SenderID: s("hi@acme.test")}, fail.KindInvalid, "sender_id", ""},
		"sender a urn":        {campaign.SuggestRequest{SegmentID: s(seg), Subject: s("Hi"), HTML: s("x"), SenderID: s("urn:uuid:" + sender)}, fail.KindInvalid, "sender_id", ""},
		"segment not an uuid": {campaign.SuggestRequest{SegmentID: s("vip"), Subject: s("Hi"), HTML: s("x")}, fail.KindInvalid, "segment_id", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.req.Validate()
			if tc.param == "" {
				if err != nil || tc.wantSender != "" && *tc.req.SenderID != tc.wantSender {
					t.Errorf("err %v, request %+v", err, tc.req)
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

// A connection's suggestion names its application and approver; a key's
// names the key; the dashboard's label falls back to the client id.
func TestSuggestionOf(t *testing.T) {
	conn := campaign.SuggestionOf(apikey.Principal{WorkspaceID: "ws", GrantID: "g1", ClientID: "sesame-client-1", ClientName: "Claude", GrantedBy: "ann@acme.test"})
	if *conn != (campaign.Suggestion{GrantID: "g1", ClientID: "sesame-client-1", ClientName: "Claude", ConnectedBy: "ann@acme.test"}) || conn.Label() != "Claude" {
		t.Errorf("connection's suggestion %+v labelled %q", conn, conn.Label())
	}
	if nameless := (campaign.Suggestion{GrantID: "g1", ClientID: "sesame-client-1"}); nameless.Label() != "sesame-client-1" {
		t.Errorf("nameless client labelled %q", nameless.Label())
	}
	key := campaign.SuggestionOf(apikey.Principal{WorkspaceID: "ws", KeyID: "k1"})
	if *key != (campaign.Suggestion{KeyID: "k1"}) || key.Label() != "an API key" {
		t.Errorf("key's suggestion %+v labelled %q", key, key.Label())
	}
}

// fakeSenders is a SenderReader of one workspace's senders.
type fakeSenders struct {
	get func(workspaceID, id string) (identity.Sender, error)
}

func (f fakeSenders) GetSender(_ context.Context, workspaceID, id string) (identity.Sender, error) {
	return f.get(workspaceID, id)
}

// The sender a suggestion names is the workspace's, on a verified domain;
// none named is the default sender.
func TestSuggestionSender(t *testing.T) {
	def := &identity.Sender{ID: "s-default", Email: "hello@acme.test"}
	ws := workspace.Workspace{ID: "ws1", DefaultSender: def, VerifiedDomains: []string{"acme.test"}}
	stored := map[string]identity.Sender{
		"s-news":  {ID: "s-news", Name: "News", Email: "news@acme.test"},
		"s-other": {ID: "s-other", Email: "news@other.test"},
	}
	d := &campaign.Drafts{Senders: fakeSenders{get: func(workspaceID, id string) (identity.Sender, error) {
		if s, ok := stored[id]; ok && workspaceID == "ws1" {
			return s, nil
		}
		return identity.Sender{}, identity.ErrSenderNotFound
	}}}
	for id, want := range map[string]struct {
		sender string
		reason fail.Reason
	}{
		"":        {sender: "s-default"},
		"s-news":  {sender: "s-news"},
		"s-gone":  {reason: fail.SenderNotFound},
		"s-other": {reason: fail.SenderNotVerified},
	} {
		got, err := campaign.SenderOf(d, context.Background(), ws, id)
		if want.reason != "" {
			if e, ok := fail.As(err); !ok || e.Reason != want.reason || e.Param != "sender_id" {
				t.Errorf("sender %q: err %v, want %s on sender_id", id, err, want.reason)
			}
			continue
		}
		if err != nil || got.ID != want.sender {
			t.Errorf("sender %q: %+v, %v; want %s", id, got, err, want.sender)
		}
	}
}
