package devstack_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
)

// Personalised emails of one layout: the day's first is kept whole and
// becomes the day's reference of the layout, the next is kept as its
// difference from it, the next day's first is whole again; the owner's
// page previews each exactly as its recipient got it, yesterday's too.
func TestDashboardShowsEachEmailOfALayout(t *testing.T) {
	t.Parallel()
	clock := dynamotest.NewClock(time.Now())
	e := startDevAt(t, clock)
	s := newSendWS(t, e, defaultSender())
	layout := `<html><body><h1>Your receipt</h1><p>Hi NAME, order ORDER is on its way.</p>` +
		`<p><a href="https://example.com/track/TOKEN">Track it</a></p>` +
		strings.Repeat(`<p>Free returns within 30 days: keep the label, drop the parcel at any post office.</p>`, 20) + `</body></html>`
	clearTemplate(t, e, s.id, layout)
	owner := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), s.id, owner); err != nil {
		t.Fatal(err)
	}
	c, _ := e.signIn(t, owner)

	var ids, tos []string
	for i, step := range []struct {
		name, stored string
		nextDay      bool
	}{
		{name: "Ann", stored: "whole"},
		{name: "Bo", stored: "difference"},
		{name: "Chiara", stored: "whole", nextDay: true},
	} {
		if step.nextDay {
			clock.Set(clock.Now().Add(24 * time.Hour))
		}
		html := strings.NewReplacer("NAME", step.name, "ORDER", fmt.Sprintf("NW-%06d", 7919*(i+1)), "TOKEN", uuid.NewString()).Replace(layout)
		req := msg("layout", map[string]any{"html": html})
		sent := e.post(s.key, "/api/v1/send", req).sent(t, http.StatusOK)
		ids, tos = append(ids, sent.ID), append(tos, req["to"].(string))
		if got := storedAs(t, e, s.id, sent.ID); got != step.stored {
			t.Errorf("%s's content is stored %s, want %s", step.name, got, step.stored)
		}
	}
	for i, id := range ids {
		if preview, went := e.dashDo(t, c, "/dashboard/preview/emails/"+id, nil), wentTo(t, e, tos[i]); preview.status != http.StatusOK || preview.body != went.html {
			t.Errorf("email %d's preview (%d) is not the html its recipient got:\n%s\nwant\n%s", i, preview.status, preview.body, went.html)
		}
	}
}

// storedAs says how the send kept an email's content: "whole" or as its
// "difference" from its layout's reference.
func storedAs(t *testing.T, e *env, workspaceID, emailID string) string {
	t.Helper()
	out, err := e.store.Table.DB.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: &e.store.Table.Name,
		Key: dynamo.Key(dynamo.EmailContentPK(workspaceID, emailID), emaildb.KeptContentSK)})
	if err != nil {
		t.Fatal(err)
	}
	_, whole := out.Item["z"]
	_, diff := out.Item["d"]
	switch {
	case whole && !diff:
		return "whole"
	case diff && !whole:
		return "difference"
	}
	return fmt.Sprintf("neither (%d attributes)", len(out.Item))
}
