package devstack_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
)

// A send's own text part, headers and tags, and a scheduled send, read as
// their recipients get them: the text part is exactly the caller's, the
// headers arrive once as given, the tags come back on the Email object
// and filter the list; a scheduled email arrives once, with its content,
// only after the clock passes its time, and a cancelled one never does.
func TestRecipientsOfSendFieldsAndSchedules(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	s := newSendWS(t, k.env, defaultSender())
	text := "Your receipt\n\nTotal: 42 EUR\nAcme, 1 Main St"
	headers := map[string]string{"X-Entity-Ref-ID": "inv-" + uuid.NewString()[:8], "In-Reply-To": "<order-7@acme.test>"}
	tags := []any{map[string]any{"name": "kind", "value": "receipt"}, map[string]any{"name": "plan", "value": "pro-2"}}
	own := func(tag string, extra map[string]any) (map[string]any, inbox.Want) {
		extra["text"], extra["headers"], extra["tags"] = text, headers, tags
		req := msg(tag, extra)
		return req, inbox.Want{To: req["to"].(string), Subject: req["subject"].(string), HTML: []string{plainHTML}, TextIs: text, Headers: headers}
	}

	nowWant := inboxWant(own("now", map[string]any{}))
	nowResp := k.post(s.key, "/api/v1/send", nowWant.req).sent(t, http.StatusOK)
	nowResp.want(t, true, "sent")

	due := k.clock.Now().Add(5 * time.Minute).Truncate(time.Second)
	later := inboxWant(own("later", map[string]any{"scheduled_at": due.Format(time.RFC3339)}))
	scheduled := k.post(s.key, "/api/v1/send", later.req).sent(t, http.StatusOK)
	scheduled.want(t, true, "scheduled")
	dropped := inboxWant(own("dropped", map[string]any{"scheduled_at": due.In(time.FixedZone("CET", 3600)).Format(time.RFC3339)}))
	cancelled := k.post(s.key, "/api/v1/send", dropped.req).sent(t, http.StatusOK)
	cancelled.want(t, true, "scheduled")

	// The Email object carries the tags and the due time; the list filters
	// by tag and by the new statuses.
	d := k.wantEmail(t, s.key, scheduled.ID, "scheduled", "")
	if d["scheduled_at"] != due.UTC().Format("2006-01-02T15:04:05.000Z") {
		t.Errorf("scheduled_at = %v, want %s", d["scheduled_at"], due.UTC())
	}
	if got, _ := d["tags"].([]any); len(got) != 2 || got[0].(map[string]any)["name"] != "kind" || got[1].(map[string]any)["value"] != "pro-2" {
		t.Errorf("tags = %v", d["tags"])
	}
	var c struct {
		Data map[string]any `json:"data"`
	}
	k.post(s.key, "/api/v1/emails/"+cancelled.ID+"/cancel", nil).decode(t, http.StatusOK, &c)
	if c.Data["status"] != "cancelled" {
		t.Errorf("cancel answered %v", c.Data)
	}
	k.bad().post(s.key, "/api/v1/emails/"+cancelled.ID+"/cancel", nil).wantError(t, http.StatusConflict, "email_not_cancellable", "")
	k.bad().post(s.key, "/api/v1/emails/"+nowResp.ID+"/cancel", nil).wantError(t, http.StatusConflict, "email_not_cancellable", "")
	other := newSendWS(t, k.env, defaultSender())
	k.bad().post(other.key, "/api/v1/emails/"+scheduled.ID+"/cancel", nil).wantError(t, http.StatusNotFound, "not_found", "")
	k.wantEmail(t, s.key, scheduled.ID, "scheduled", "") // a foreign cancel changed nothing
	if ids := listIDs(k.list(bearer(s.key), "?status=scheduled")); len(ids) != 1 || ids[0] != scheduled.ID {
		t.Errorf("status=scheduled lists %v, want only %s", ids, scheduled.ID)
	}
	if ids := listIDs(k.list(bearer(s.key), "?status=cancelled")); len(ids) != 1 || ids[0] != cancelled.ID {
		t.Errorf("status=cancelled lists %v, want only %s", ids, cancelled.ID)
	}
	if ids := listIDs(k.list(bearer(s.key), "?tag=kind:receipt")); len(ids) != 3 {
		t.Errorf("tag=kind:receipt lists %v, want the 3 tagged emails", ids)
	}
	if ids := listIDs(k.list(bearer(s.key), "?tag=kind:invoice")); len(ids) != 0 {
		t.Errorf("tag=kind:invoice lists %v, want none", ids)
	}

	// Before its time a tick sends nothing; after it, one tick and the
	// review send it once, and a second sweep sends it no more.
	if err := k.tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	k.wantEmail(t, s.key, scheduled.ID, "scheduled", "")
	k.clock.Add(7 * time.Minute)
	if err := k.tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	k.reviewHeld(t, 2) // the due email, and the cancelled one's wake-up, which finds nothing
	if err := k.tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	k.wantEmail(t, s.key, scheduled.ID, "sent", "")
	k.wantEmail(t, s.key, cancelled.ID, "cancelled", "")
	k.bad().post(s.key, "/api/v1/emails/"+scheduled.ID+"/cancel", nil).wantError(t, http.StatusConflict, "email_not_cancellable", "")

	k.box(t, s.id).Check(t, nowWant.want, later.want) // the cancelled recipient got nothing
}

type wanted struct {
	req  map[string]any
	want inbox.Want
}

func inboxWant(req map[string]any, w inbox.Want) wanted { return wanted{req, w} }

func listIDs(b listBody) []string {
	var ids []string
	for _, e := range b.Data {
		ids = append(ids, e.ID)
	}
	return ids
}

// Every new field refused when wrong: the spec's envelope with the field
// as param, nothing stored, nothing sent.
func TestSendFieldsBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	with := func(extra map[string]any) map[string]any { return msg("bad", extra) }
	now := time.Now().UTC()
	cases := map[string]struct {
		body    map[string]any
		param   string
		message string
	}{
		"text with NUL":             {with(map[string]any{"text": "a\x00b"}), "text", "NUL"},
		"text a number":             {with(map[string]any{"text": 7}), "text", ""},
		"header From":               {with(map[string]any{"headers": map[string]any{"From": "x@evil.test"}}), "headers", "From"},
		"header bcc":                {with(map[string]any{"headers": map[string]any{"bcc": "x@evil.test"}}), "headers", "Bcc"},
		"header DKIM-Signature":     {with(map[string]any{"headers": map[string]any{"DKIM-Signature": "v=1"}}), "headers", "Dkim-"},
		"header List-Unsubscribe":   {with(map[string]any{"headers": map[string]any{"List-Unsubscribe": "<https://x.test>"}}), "headers", "List-Unsubscribe"},
		"header X-SES-*":            {with(map[string]any{"headers": map[string]any{"X-SES-CONFIGURATION-SET": "x"}}), "headers", "X-Ses-"},
		"header Content-Type":       {with(map[string]any{"headers": map[string]any{"Content-Type": "text/plain"}}), "headers", "Content-"},
		"header value with CRLF":    {with(map[string]any{"headers": map[string]any{"X-Ref": "a\r\nBcc: x@evil.test"}}), "headers", "line break"},
		"header name with a colon":  {with(map[string]any{"headers": map[string]any{"X-A:B": "1"}}), "headers", "header name"},
		"21 headers":                {with(map[string]any{"headers": manyHeaderBody(21)}), "headers", "at most 20"},
		"headers an array":          {with(map[string]any{"headers": []any{"X-A: 1"}}), "headers", ""},
		"tag with a space":          {with(map[string]any{"tags": []any{map[string]any{"name": "kind", "value": "a b"}}}), "tags", "ASCII letters"},
		"tag name twice":            {with(map[string]any{"tags": []any{map[string]any{"name": "a", "value": "1"}, map[string]any{"name": "a", "value": "2"}}}), "tags", "twice"},
		"11 tags":                   {with(map[string]any{"tags": manyTags(11)}), "tags", "at most 10"},
		"cc":                        {with(map[string]any{"cc": "c@example.org"}), "cc", "/send/batch"},
		"bcc":                       {with(map[string]any{"bcc": []any{"c@example.org"}}), "bcc", "/send/batch"},
		"scheduled_at not RFC 3339": {with(map[string]any{"scheduled_at": "tomorrow 9am"}), "scheduled_at", "RFC 3339"},
		"scheduled_at without zone": {with(map[string]any{"scheduled_at": now.Add(time.Hour).Format("2006-01-02T15:04:05")}), "scheduled_at", "RFC 3339"},
		"scheduled_at in the past":  {with(map[string]any{"scheduled_at": now.Add(-time.Minute).Format(time.RFC3339)}), "scheduled_at", "in the future"},
		"scheduled_at over 30 days": {with(map[string]any{"scheduled_at": now.Add(31 * 24 * time.Hour).Format(time.RFC3339)}), "scheduled_at", "30 days"},
		"scheduled_at a number":     {with(map[string]any{"scheduled_at": 5}), "scheduled_at", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before, sends := len(e.emailIDs(t, s.key)), len(e.ses.Sends())
			r := e.bad().post(s.key, "/api/v1/send", tc.body)
			r.wantError(t, http.StatusBadRequest, "invalid_field", tc.param)
			if !strings.Contains(string(r.body), tc.message) {
				t.Errorf("message should mention %q: %s", tc.message, r.body)
			}
			if after := len(e.emailIDs(t, s.key)); after != before {
				t.Errorf("%d emails stored by a refused send", after-before)
			}
			if got := len(e.ses.Sends()) - sends; got != 0 {
				t.Errorf("%d SES sends by a refused send", got)
			}
		})
	}

	// In a batch, the item's own field is named.
	past := msg("bad", map[string]any{"scheduled_at": now.Add(-time.Hour).Format(time.RFC3339)})
	items := e.post(s.key, "/api/v1/send/batch", map[string]any{"emails": []any{past}}).batch(t, 1)
	if items[0].Error == nil || deref(items[0].Error.Param) != "emails[0].scheduled_at" {
		t.Errorf("batch item: %+v", items[0])
	}
	e.bad().get(bearer(s.key), "/api/v1/emails?tag=kind").wantError(t, http.StatusBadRequest, "invalid_field", "tag")
	e.bad().get(bearer(s.key), "/api/v1/emails?tag=kind:a%20b").wantError(t, http.StatusBadRequest, "invalid_field", "tag")
	e.bad().post(s.key, "/api/v1/emails/not-a-uuid/cancel", nil).wantError(t, http.StatusNotFound, "not_found", "")
	e.bad().post(s.key, "/api/v1/emails/"+uuid.NewString()+"/cancel", nil).wantError(t, http.StatusNotFound, "not_found", "")
	if n := len(e.emailIDs(t, s.key)); n != 0 {
		t.Errorf("%d emails stored by refused requests", n)
	}
}

func manyHeaderBody(n int) map[string]any {
	h := map[string]any{}
	for i := range n {
		h["X-Ref-"+strings.Repeat("a", i+1)] = "v"
	}
	return h
}

func manyTags(n int) []any {
	var tags []any
	for i := range n {
		tags = append(tags, map[string]any{"name": "t" + strings.Repeat("x", i), "value": "v"})
	}
	return tags
}
