package sending_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/sending"
)

// A send by a connection's token records the connection on its email; a
// key's records none.
func TestPlanMarksAConnection(t *testing.T) {
	byConnection := func(in *sending.PlanInput) {
		in.Principal.GrantID, in.Principal.ClientID, in.Principal.ClientName, in.Principal.GrantedBy = "g1", "sesame-client-1", "Claude", "ann@acme.test"
	}
	for name, tc := range map[string]struct {
		in   sending.PlanInput
		want *email.Connection
	}{
		"key":                    {input(), nil},
		"connection":             {input(byConnection), &email.Connection{GrantID: "g1", ClientID: "sesame-client-1", ClientName: "Claude"}},
		"connection, held":       {input(byConnection, newTemplate), &email.Connection{GrantID: "g1", ClientID: "sesame-client-1", ClientName: "Claude"}},
		"connection, suppressed": {input(byConnection, suppressed), &email.Connection{GrantID: "g1", ClientID: "sesame-client-1", ClientName: "Claude"}},
	} {
		d, err := sending.Plan(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := d.Email.Connection
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: email's connection %+v, want %+v", name, got, tc.want)
		}
	}
}

// tallyFunc is a ConnectionTally of one function.
type tallyFunc func(workspaceID string, c email.Connection, hour time.Time, n int) error

func (f tallyFunc) CountConnectionSends(_ context.Context, workspaceID string, c email.Connection, hour time.Time, n int) error {
	return f(workspaceID, c, hour, n)
}

// A connection's request adds its emails to the hour's tally; a key's, or
// one that made no email, adds nothing; a failed tally fails nothing.
func TestNoteSends(t *testing.T) {
	at := time.Date(2026, 11, 27, 13, 42, 5, 0, time.UTC)
	conn := apikey.Principal{WorkspaceID: "ws1", GrantID: "g1", ClientID: "c1", ClientName: "Claude"}
	type call struct {
		ws   string
		c    email.Connection
		hour time.Time
		n    int
	}
	for name, tc := range map[string]struct {
		p    apikey.Principal
		n    int
		fail bool
		want []call
	}{
		"a connection's batch": {conn, 3, false, []call{{"ws1", email.Connection{GrantID: "g1", ClientID: "c1", ClientName: "Claude"}, at.Truncate(time.Hour), 3}}},
		"a replay":             {conn, 0, false, nil},
		"a key's send":         {apikey.Principal{WorkspaceID: "ws1", KeyID: "k1"}, 1, false, nil},
		"the tally fails":      {conn, 1, true, []call{{"ws1", email.Connection{GrantID: "g1", ClientID: "c1", ClientName: "Claude"}, at.Truncate(time.Hour), 1}}},
	} {
		var got []call
		s := &sending.Service{Now: func() time.Time { return at }, Connections: tallyFunc(func(ws string, c email.Connection, hour time.Time, n int) error {
			got = append(got, call{ws, c, hour, n})
			if tc.fail {
				return errors.New("throttled")
			}
			return nil
		})}
		s.NoteSends(context.Background(), tc.p, tc.n)
		if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
			t.Errorf("%s: tallied %+v, want %+v", name, got, tc.want)
		}
	}
	if n := (sending.Outcome{Replayed: true}).Made(); n != 0 {
		t.Errorf("a replay made %d emails", n)
	}
	if n := (sending.Outcome{}).Made(); n != 1 {
		t.Errorf("a send made %d emails", n)
	}
}
