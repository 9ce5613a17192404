package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// oneEmail is an email store holding one email of workspace "ws".
type oneEmail struct{ email.Email }

func (o oneEmail) GetEmail(_ context.Context, workspaceID, id string) (email.Email, error) {
	if workspaceID != "ws" || id != o.ID {
		return email.Email{}, email.ErrNotFound
	}
	return o.Email, nil
}

func (oneEmail) ListEmails(context.Context, string, email.Filter, string, int) ([]email.Email, string, bool, error) {
	return nil, "", false, nil
}

func (oneEmail) ListClicks(context.Context, string, string, int) ([]email.Click, bool, error) {
	return nil, false, nil
}

// deliveryStore answers with its function fields; the endpoint changes
// it does not make are the nil embedded store's.
type deliveryStore struct {
	webhook.EndpointStore
	endpoints func() ([]webhook.Endpoint, error)
	attempts  func(endpointID, emailID string, since time.Time, examine int) ([]webhook.Attempt, bool, error)
}

func (d deliveryStore) ListEndpoints(context.Context, string) ([]webhook.Endpoint, error) {
	return d.endpoints()
}

func (d deliveryStore) EmailAttempts(_ context.Context, _, endpointID, emailID string, since time.Time, examine int) ([]webhook.Attempt, bool, error) {
	return d.attempts(endpointID, emailID, since, examine)
}

// deliveries finds an email's deliveries as the owner's surfaces do: the
// email read by its id, then its deliveries.
func deliveries(ctx context.Context, emails email.ViewStore, store deliveryStore, workspaceID, id string) (webhook.EmailDeliveries, error) {
	m, err := (&email.Views{Store: emails}).Get(ctx, workspaceID, id)
	if err != nil {
		return webhook.EmailDeliveries{}, err
	}
	return (&webhook.Service{Endpoints: store, EmailAttempts: store}).DeliveriesOf(ctx, m)
}

// An email's deliveries: every endpoint's attempts of it since its
// sending, oldest first across endpoints, each with its endpoint's URL;
// partial when any endpoint's search stopped at its share of the bound or
// endpoints were left unsearched.
func TestEmailDeliveries(t *testing.T) {
	sent := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	m := email.Email{ID: uuid.NewString(), WorkspaceID: "ws", SentAt: sent}
	endpoints := []webhook.Endpoint{{ID: "a", URL: "https://a.example.com/"}, {ID: "b", URL: "https://b.example.com/"}}
	at := func(d time.Duration) time.Time { return sent.Add(d) }
	logs := map[string][]webhook.Attempt{
		"a": {{EventID: "evt_delivered", At: at(time.Second)}, {EventID: "evt_opened", At: at(time.Hour)}},
		"b": {{EventID: "evt_delivered", At: at(2 * time.Second)}},
	}
	cases := map[string]struct {
		email      email.Email
		id         string
		incomplete string // an endpoint whose search stops at the bound
		fault      error
		many       int // endpoints besides a and b, with no attempt
		want       string
		wantErr    error
		wantReads  int
		wantShare  int
	}{
		"every endpoint, oldest first": {email: m, id: m.ID, wantReads: 2, wantShare: 500,
			want: "[a.example.com evt_delivered b.example.com evt_delivered a.example.com evt_opened] partial=false"},
		"the id in capitals": {email: m, id: strings.ToUpper(m.ID), wantReads: 2, wantShare: 500,
			want: "[a.example.com evt_delivered b.example.com evt_delivered a.example.com evt_opened] partial=false"},
		"one endpoint stopped at the bound": {email: m, id: m.ID, incomplete: "b", wantReads: 2, wantShare: 500,
			want: "[a.example.com evt_delivered b.example.com evt_delivered a.example.com evt_opened] partial=true"},
		"never sent: nothing read":    {email: email.Email{ID: m.ID, WorkspaceID: "ws"}, id: m.ID, want: "[] partial=false"},
		"another workspace's or none": {email: m, id: uuid.NewString(), wantErr: email.ErrNotFound},
		"not an email id":             {email: m, id: "evt_1", wantErr: email.ErrNotFound},
		"a store fault":               {email: m, id: m.ID, fault: errors.New("throttled"), wantReads: 2, wantShare: 500},
		"past the endpoints searched": {email: m, id: m.ID, many: 23, wantReads: webhook.EmailDeliveriesEndpoints, wantShare: 50,
			want: "[a.example.com evt_delivered b.example.com evt_delivered a.example.com evt_opened] partial=true"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var reads atomic.Int32
			eps := slices.Clone(endpoints)
			for i := range tc.many {
				eps = append(eps, webhook.Endpoint{ID: fmt.Sprint(i), URL: fmt.Sprintf("https://%d.example.com/", i)})
			}
			store := deliveryStore{
				endpoints: func() ([]webhook.Endpoint, error) { return eps, nil },
				attempts: func(endpointID, emailID string, since time.Time, examine int) ([]webhook.Attempt, bool, error) {
					reads.Add(1)
					if emailID != m.ID || !since.Equal(sent) || examine != tc.wantShare {
						t.Errorf("read of %s since %v examining %d", emailID, since, examine)
					}
					return logs[endpointID], endpointID != tc.incomplete, tc.fault
				},
			}
			got, err := deliveries(t.Context(), oneEmail{tc.email}, store, "ws", tc.id)
			if n := int(reads.Load()); n != tc.wantReads && (tc.fault == nil || n < 1) {
				t.Errorf("%d attempt reads, want %d", n, tc.wantReads)
			}
			switch {
			case tc.fault != nil:
				failtest.WantIs(t, err, tc.fault)
				return
			case tc.wantErr != nil:
				failtest.WantIs(t, err, tc.wantErr)
				if fail.KindOf(err) != fail.KindNotFound {
					t.Errorf("err %v is not a not-found", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			var seen []string
			for _, a := range got.Attempts {
				seen = append(seen, a.EndpointURL[len("https://"):len(a.EndpointURL)-1], a.EventID)
			}
			if s := fmt.Sprintf("%v partial=%v", seen, got.Partial); s != tc.want || got.Attempts == nil {
				t.Errorf("deliveries %s, want %s", s, tc.want)
			}
		})
	}
	if _, err := deliveries(t.Context(), oneEmail{m}, deliveryStore{}, "", m.ID); err == nil {
		t.Error("no workspace: no error")
	}
}
