package webhookdb_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestWebhookEndpointLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, acme, beta, ep := endpointInAcme(t, "email.bounced", "email.delivered")
	got, err := store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Secret != ep.Secret || got.URL != ep.URL || !got.Enabled || !slices.Equal(got.Events, ep.Events) ||
		!got.CreatedAt.Equal(ep.CreatedAt) || got.LastSuccessAt != nil || got.ConsecutiveFailures != 0 {
		t.Errorf("read back %+v, want %+v", got, ep)
	}

	// Another workspace cannot see, change or remove it.
	if _, err := store.Webhooks.GetEndpoint(ctx, beta.ID, ep.ID); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("get from another workspace: err = %v", err)
	}
	if _, err := store.Webhooks.SetEndpointEnabled(ctx, beta.ID, ep.ID, false, "x"); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("disable from another workspace: err = %v", err)
	}
	if err := store.Webhooks.DeleteEndpoint(ctx, beta.ID, ep.ID); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("remove from another workspace: err = %v", err)
	}
	if l, err := store.Webhooks.ListEndpoints(ctx, beta.ID); err != nil || len(l) != 0 {
		t.Errorf("another workspace lists %v (err %v)", l, err)
	}
	if err := store.Webhooks.CreateEndpoint(ctx, webhook.Endpoint{ID: uuid.NewString(), WorkspaceID: uuid.NewString(), URL: "https://x.example.com"}); !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("create in a missing workspace: err = %v", err)
	}

	// Failures count up; success resets them; owner disable and enable.
	for range 3 {
		if err := store.Webhooks.EndpointFailed(ctx, acme.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
	}
	disabled, err := store.Webhooks.SetEndpointEnabled(ctx, acme.ID, ep.ID, false, webhook.OwnerDisableReason)
	if err != nil {
		t.Fatal(err)
	}
	if disabled.Enabled || disabled.DisabledReason != webhook.OwnerDisableReason || disabled.ConsecutiveFailures != 3 {
		t.Errorf("after disable: %+v", disabled)
	}
	enabled, err := store.Webhooks.SetEndpointEnabled(ctx, acme.ID, ep.ID, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if !enabled.Enabled || enabled.DisabledReason != "" || enabled.ConsecutiveFailures != 0 {
		t.Errorf("after enable: %+v, want enabled, no reason, failures cleared", enabled)
	}
	at := time.Now().UTC().Truncate(time.Millisecond)
	if err := store.Webhooks.EndpointFailed(ctx, acme.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.Webhooks.EndpointSucceeded(ctx, acme.ID, ep.ID, at); err != nil {
		t.Fatal(err)
	}
	got, _ = store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID)
	if got.ConsecutiveFailures != 0 || got.LastSuccessAt == nil || !got.LastSuccessAt.Equal(at) {
		t.Errorf("after a success: %+v, want last success %v", got, at)
	}

	second, _ := webhook.NewEndpoint(acme.ID, "https://other.example.com/", nil, false)
	if err := store.Webhooks.CreateEndpoint(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := store.Webhooks.CreateEndpoint(ctx, second); err == nil {
		t.Error("the same endpoint id was created twice")
	}
	list, err := store.Webhooks.ListEndpoints(ctx, acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != ep.ID || list[1].ID != second.ID || list[1].Events != nil {
		t.Errorf("list = %+v, want both, oldest first", list)
	}

	if err := store.Webhooks.DeleteEndpoint(ctx, acme.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("get after remove: err = %v", err)
	}
	if err := store.Webhooks.DeleteEndpoint(ctx, acme.ID, ep.ID); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("remove twice: err = %v", err)
	}
	// Bookkeeping of a job in flight does not resurrect a removed endpoint.
	if err := store.Webhooks.EndpointFailed(ctx, acme.ID, ep.ID); err != nil {
		t.Errorf("failure on a removed endpoint: %v", err)
	}
	if err := store.Webhooks.EndpointSucceeded(ctx, acme.ID, ep.ID, at); err != nil {
		t.Errorf("success on a removed endpoint: %v", err)
	}
	if _, err := store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("the removed endpoint came back: err = %v", err)
	}
}

func TestWebhookDisableFailingEndpoint(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().UTC().Truncate(time.Millisecond).Add(-time.Hour)
	cases := map[string]struct {
		lastSuccess *time.Time
		disabled    bool // by the owner before
		want        bool
	}{
		"never succeeded":            {want: true},
		"succeeded before":           {lastSuccess: new(since.Add(-time.Millisecond)), want: true},
		"succeeded at the same time": {lastSuccess: new(since), want: false},
		"succeeded after":            {lastSuccess: new(since.Add(time.Minute)), want: false},
		"already disabled":           {disabled: true, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ep, _ := webhook.NewEndpoint(ws.ID, "https://hooks.example.com/", nil, false)
			if err := store.Webhooks.CreateEndpoint(ctx, ep); err != nil {
				t.Fatal(err)
			}
			if tc.lastSuccess != nil {
				if err := store.Webhooks.EndpointSucceeded(ctx, ws.ID, ep.ID, *tc.lastSuccess); err != nil {
					t.Fatal(err)
				}
			}
			if tc.disabled {
				if _, err := store.Webhooks.SetEndpointEnabled(ctx, ws.ID, ep.ID, false, webhook.OwnerDisableReason); err != nil {
					t.Fatal(err)
				}
			}
			got, err := store.Webhooks.DisableFailingEndpoint(ctx, ws.ID, ep.ID, webhook.AutoDisableReason, since)
			if err != nil || got != tc.want {
				t.Fatalf("DisableFailingEndpoint = %v, %v; want %v", got, err, tc.want)
			}
			after, _ := store.Webhooks.GetEndpoint(ctx, ws.ID, ep.ID)
			switch {
			case tc.want && (after.Enabled || after.DisabledReason != webhook.AutoDisableReason):
				t.Errorf("endpoint = %+v, want disabled with the automatic reason", after)
			case tc.disabled && after.DisabledReason != webhook.OwnerDisableReason:
				t.Errorf("the owner's reason was replaced: %+v", after)
			case !tc.want && !tc.disabled && !after.Enabled:
				t.Errorf("endpoint disabled despite a later success: %+v", after)
			}
		})
	}
	if ok, err := store.Webhooks.DisableFailingEndpoint(ctx, ws.ID, uuid.NewString(), "x", since); ok || err != nil {
		t.Errorf("absent endpoint: %v, %v", ok, err)
	}
}

func TestWebhookDeliveriesAndAttempts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws := uuid.NewString()
	endpointID := uuid.NewString()
	now := time.Now().UTC().Truncate(time.Millisecond)

	// A delivery is its successful attempt: DeliveredSince finds a 2xx
	// attempt of the event at or after since, of this endpoint only.
	record := func(ws, endpointID, eventID string, at time.Time, code int, errText string) {
		t.Helper()
		a := webhook.Attempt{WorkspaceID: ws, EndpointID: endpointID, EventID: eventID, EventType: event.Delivered,
			Number: 1, At: at, StatusCode: code, Error: errText}
		if err := store.Webhooks.RecordAttempt(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	hooked := uuid.NewString()
	record(ws, hooked, "evt_failed", now, 500, "HTTP 500")
	record(ws, hooked, "evt_ok", now, 204, "")
	record(ws, hooked, "evt_other", now.Add(time.Second), 200, "")
	record(uuid.NewString(), hooked, "evt_elsewhere", now, 200, "")
	for _, tc := range []struct {
		eventID string
		since   time.Time
		want    bool
	}{
		{"evt_ok", now.Add(-time.Minute), true},
		{"evt_ok", now, true},
		{"evt_ok", now.Add(time.Millisecond), false},
		{"evt_failed", now.Add(-time.Minute), false},
		{"evt_elsewhere", now.Add(-time.Minute), false},
		{"evt_none", time.Time{}, false},
	} {
		got, err := store.Webhooks.DeliveredSince(ctx, ws, hooked, "", tc.eventID, tc.since)
		if err != nil || got != tc.want {
			t.Errorf("DeliveredSince(%s, %s) = %v, %v; want %v", tc.eventID, tc.since, got, err, tc.want)
		}
	}

	// Attempts come back newest first, including two in the same second
	// whose RFC 3339 forms would sort wrongly without fixed-width fractions.
	base := now.Truncate(time.Second)
	times := []time.Time{base.Add(-time.Hour), base, base.Add(500 * time.Millisecond), base.Add(120 * time.Millisecond), base.Add(time.Second)}
	for i, at := range times {
		a := webhook.Attempt{
			WorkspaceID: ws, EndpointID: endpointID, EventID: fmt.Sprintf("evt_%d", i), EventType: event.Delivered,
			Number: i + 1, At: at, StatusCode: 500, LatencyMS: int64(10 * i), Error: "HTTP 500",
		}
		if err := store.Webhooks.RecordAttempt(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.Webhooks.ListAttempts(ctx, ws, endpointID, 100)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, a := range got {
		order = append(order, a.EventID)
	}
	if want := []string{"evt_4", "evt_2", "evt_3", "evt_1", "evt_0"}; !slices.Equal(order, want) {
		t.Errorf("attempt order = %v, want %v (newest first)", order, want)
	}
	if a := got[0]; a.Number != 5 || a.StatusCode != 500 || a.LatencyMS != 40 || a.Error != "HTTP 500" ||
		a.EventType != event.Delivered || !a.At.Equal(times[4]) || a.EndpointID != endpointID {
		t.Errorf("attempt read back as %+v", a)
	}
	if two, _ := store.Webhooks.ListAttempts(ctx, ws, endpointID, 2); len(two) != 2 || two[0].EventID != "evt_4" {
		t.Errorf("limit 2 gave %+v", two)
	}
	if none, _ := store.Webhooks.ListAttempts(ctx, uuid.NewString(), endpointID, 10); len(none) != 0 {
		t.Errorf("another workspace reads %d attempts", len(none))
	}
}

func TestWebhookRotateEndpointSecret(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, acme, beta, ep := endpointInAcme(t)
	if got, _ := store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID); got.PreviousSecret != "" || got.PreviousSecretUntil != nil {
		t.Errorf("a new endpoint has a previous secret: %+v", got)
	}

	// The secret in use becomes the previous one, until the time given.
	until := time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)
	first := webhook.NewSecret()
	rotated, err := store.Webhooks.RotateEndpointSecret(ctx, acme.ID, ep.ID, first, until)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]webhook.Endpoint{"returned": rotated, "read back": got} {
		if e.Secret != first || e.PreviousSecret != ep.Secret || e.PreviousSecretUntil == nil || !e.PreviousSecretUntil.Equal(until) ||
			e.URL != ep.URL || !e.Enabled {
			t.Errorf("%s after a rotation: %+v", name, e)
		}
	}

	// Rotating again within the overlap: the secret in use before this
	// rotation is the previous one; the first one stops signing.
	second := webhook.NewSecret()
	later := until.Add(time.Hour)
	again, err := store.Webhooks.RotateEndpointSecret(ctx, acme.ID, ep.ID, second, later)
	if err != nil {
		t.Fatal(err)
	}
	if again.Secret != second || again.PreviousSecret != first || !again.PreviousSecretUntil.Equal(later) {
		t.Errorf("after a second rotation: %+v, want %s then %s until %v", again, second, first, later)
	}

	// Another workspace's endpoint, or none, is not found and unchanged.
	for name, call := range map[string]func() error{
		"another workspace": func() error {
			_, err := store.Webhooks.RotateEndpointSecret(ctx, beta.ID, ep.ID, webhook.NewSecret(), until)
			return err
		},
		"no such endpoint": func() error {
			_, err := store.Webhooks.RotateEndpointSecret(ctx, acme.ID, uuid.NewString(), webhook.NewSecret(), until)
			return err
		},
	} {
		if err := call(); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Errorf("%s: err = %v, want not found", name, err)
		}
	}
	if after, _ := store.Webhooks.GetEndpoint(ctx, acme.ID, ep.ID); after.Secret != second || after.PreviousSecret != first {
		t.Errorf("a refused rotation changed the endpoint: %+v", after)
	}
	if eps, _ := store.Webhooks.ListEndpoints(ctx, beta.ID); len(eps) != 0 {
		t.Errorf("a refused rotation created %+v in another workspace", eps)
	}
}

// endpointInAcme stores an endpoint of a workspace Acme, beside a
// workspace Beta.
func endpointInAcme(t *testing.T, events ...string) (store repositories.Set, acme, beta workspace.Workspace, ep webhook.Endpoint) {
	t.Helper()
	ctx := t.Context()
	store, _ = dynamotest.NewStore(t)
	var err error
	if acme, err = store.Workspaces.CreateWorkspace(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if beta, err = store.Workspaces.CreateWorkspace(ctx, "Beta"); err != nil {
		t.Fatal(err)
	}
	if ep, err = webhook.NewEndpoint(acme.ID, "https://hooks.example.com/in", events, false); err != nil {
		t.Fatal(err)
	}
	if err := store.Webhooks.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	return store, acme, beta, ep
}

// An email's attempts: only its own, of this endpoint, made since it was
// sent, oldest first; the search examines at most the bound (shared by
// the partitions it reads) and says when it stopped before the end.
func TestWebhookEmailAttempts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	// Fixed email ids: the other ones' attempts land in other shards.
	ws, endpointID, emailID := uuid.NewString(), uuid.NewString(), "0198f3a2-6c1e-7d41-9b7a-3f2e1d0c9b8a"
	sent := time.Now().UTC().Truncate(time.Millisecond)
	record := func(ws, endpointID, emailID, eventID string, at time.Time) {
		t.Helper()
		a := webhook.Attempt{WorkspaceID: ws, EndpointID: endpointID, EventID: eventID, EventType: event.Opened, EmailID: emailID,
			Number: 2, At: at, StatusCode: 503, LatencyMS: 12, Error: "HTTP 503"}
		// One item an attempt in the email's shard, as before the batch
		// items, so that the bound's cases know where they are.
		putOneAttemptItem(t, store, a, false)
	}
	record(ws, endpointID, emailID, "evt_before", sent.Add(-time.Millisecond))
	record(ws, endpointID, emailID, "evt_second", sent.Add(2*time.Second))
	record(ws, endpointID, emailID, "evt_first", sent)
	record(ws, endpointID, "0198f3a2-6c1e-7d41-9b7a-000000000001", "evt_other_email", sent.Add(time.Second))
	record(ws, endpointID, "", "evt_no_email", sent.Add(time.Second)) // a job from before jobs carried the email
	record(ws, uuid.NewString(), emailID, "evt_other_endpoint", sent.Add(time.Second))
	record(uuid.NewString(), endpointID, emailID, "evt_other_workspace", sent.Add(time.Second))

	for name, tc := range map[string]struct {
		examine      int
		want         []string
		wantComplete bool
	}{
		"every attempt since the sending": {examine: 100, want: []string{"evt_first", "evt_second"}, wantComplete: true},
		// The bound is shared by the partitions read (16 batch shards, the
		// email's shard of one-attempt items, the unsharded one), at least
		// one item each: the email's attempts here are one item each.
		"the bound stops before the last one": {examine: 18, want: []string{"evt_first"}},
		"the bound ends with the last one":    {examine: 2 * 18, want: []string{"evt_first", "evt_second"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, complete, err := store.Webhooks.EmailAttempts(ctx, ws, endpointID, emailID, sent, tc.examine)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, a := range got {
				ids = append(ids, a.EventID)
			}
			if !slices.Equal(ids, tc.want) || complete != tc.wantComplete {
				t.Errorf("attempts %v (complete %v), want %v (complete %v)", ids, complete, tc.want, tc.wantComplete)
			}
			if a := got[0]; a.EmailID != emailID || a.EndpointID != endpointID || a.WorkspaceID != ws || a.Number != 2 ||
				a.StatusCode != 503 || a.LatencyMS != 12 || a.Error != "HTTP 503" || a.EventType != event.Opened || !a.At.Equal(sent) {
				t.Errorf("attempt read back as %+v", a)
			}
		})
	}
}
