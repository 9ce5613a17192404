package devstack_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// A test key and a live key of one workspace never share an
// Idempotency-Key answer: the live send is its own, and is delivered.
func TestIdempotencyKeyIsScopedToTheEnvironment(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	key := uuid.NewString()
	req := msg("idemenv", nil)
	test := e.postTo(t, e.url, s.testKey, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	live := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	if live.ID == test.ID || live.Message == test.Message {
		t.Errorf("live send replayed the test send: %+v", live)
	}
	if got := len(e.ses.sendsTo(req["to"].(string))); got != 1 {
		t.Errorf("%d SES sends, want the live one", got)
	}
}

// When the request's own deadline ends during the SES call, what the send
// wrote is still undone: no email left "sent", and the key is free again.
func TestSendCleansUpAfterItsDeadline(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	ctx, cancel := context.WithCancel(t.Context())
	e.ses.setFail(func(sending.SendInput) error { cancel(); return context.Canceled })
	req := sending.Request{To: rcpt("deadline"), Subject: "Order " + uuid.NewString(), HTML: plainHTML}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	p := apikey.Principal{WorkspaceID: s.id, Environment: apikey.Live}
	key := uuid.NewString()
	hash := sending.RequestHash("/api/v1/send", req)
	if _, err := e.deps.Sending.Send(ctx, p, req, key, hash); err == nil {
		t.Fatal("send succeeded although its context ended during the SES call")
	}
	e.ses.setFail(nil)
	emails, _, _, err := e.store.Emails.ListEmails(t.Context(), s.id, email.Filter{}, "", 10)
	if err != nil || len(emails) != 0 {
		t.Fatalf("emails after the failed send = %+v (err %v), want none", emails, err)
	}
	out, err := e.deps.Sending.Send(t.Context(), p, req, key, hash)
	if err != nil || out.Body.Status != email.StatusSent {
		t.Fatalf("retry with the same key = %+v, %v; want a fresh send", out, err)
	}
}

// A store fault in one batch item is that item's answer (503's code, to
// retry): the others are sent and reported, not turned into an error
// after the fact.
func TestBatchItemFaultIsReportedPerItem(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	// Each item's email and kept content are one BatchWriteItem.
	var puts atomic.Int32
	e.rec.Fail = func(op string) error {
		if op == "BatchWriteItem" && puts.Add(1) == 2 {
			return errors.New("dynamodb: connection reset")
		}
		return nil
	}
	t.Cleanup(func() { e.rec.Fail = nil })
	items := e.post(s.key, "/api/v1/send/batch", map[string]any{"emails": []map[string]any{
		msg("b0", nil), msg("b1", nil), msg("b2", nil),
	}}).batch(t, 3)
	failed, sent := 0, 0
	for _, it := range items {
		switch {
		case it.Error != nil && it.Error.Code == "service_unavailable" && it.Error.Param == nil:
			failed++
		case it.Status == "sent":
			sent++
		}
	}
	if failed != 1 || sent != 2 {
		t.Errorf("batch items = %+v; want one service_unavailable and two sent", items)
	}
	if n := len(e.ses.Sends()); n != 2 {
		t.Errorf("%d SES sends, want the two items that were recorded", n)
	}
}

// A failure before SES takes the email is in the events feed as
// email.failed: an SES rejection at send time and a review that does not
// clear a held email.
func TestSyncFailuresReachTheFeed(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	e.ses.setFail(func(sending.SendInput) error {
		return &ses.RejectedError{Reason: "the message was rejected", Code: "MessageRejected"}
	})
	rejected := e.post(s.key, "/api/v1/send", msg("rejected", nil)).sent(t, http.StatusOK)
	e.ses.setFail(nil)
	held := e.post(s.key, "/api/v1/send", msg("phish", map[string]any{"html": `<form action="https://x.example"><input type="password"></form>`})).sent(t, http.StatusAccepted)
	e.reviewHeld(t, 1)
	e.wantEmail(t, s.key, held.ID, "failed", "security review")

	r := e.get(bearer(s.key), "/api/v1/events")
	var feed struct {
		Data []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Data struct {
				ID     string  `json:"id"`
				Status string  `json:"status"`
				Error  *string `json:"error"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &feed); err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, item := range feed.Data {
		if item.Type == "email.failed" && item.Data.Status == "failed" && item.Data.Error != nil {
			failed[item.Data.ID] = true
		}
	}
	if !failed[rejected.ID] || !failed[held.ID] {
		t.Errorf("feed = %s; want email.failed for %s and %s", r.body, rejected.ID, held.ID)
	}
}

// A transient SES fault while the review releases a cleared email keeps
// it held; the review message comes back and sends it then.
func TestReviewRetriesATransientSendFault(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	req := msg("retryheld", map[string]any{"html": "<section><p>New layout</p></section>"})
	held := e.post(s.key, "/api/v1/send", req).sent(t, http.StatusAccepted)
	e.ses.setFail(func(sending.SendInput) error { return ses.ErrThrottled })
	m := sending.ReviewMessage{WorkspaceID: s.id, EmailID: held.ID}
	if err := e.deps.Reviewer.Review(t.Context(), m); err == nil {
		t.Fatal("review succeeded although SES refused the send")
	}
	e.wantEmail(t, s.key, held.ID, "held", "")
	e.ses.setFail(nil)
	// The lease of the failed try still holds; a later try (past it) sends.
	clock := dynamotest.NewClock(time.Now().Add(time.Minute))
	svc := *e.deps.Sending
	svc.Now = clock.Now
	rv := *e.deps.Reviewer
	rv.Service = &svc
	if err := rv.Review(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	e.wantEmail(t, s.key, held.ID, "sent", "")
	if got := len(e.ses.sendsTo(req["to"].(string))); got != 2 {
		t.Errorf("%d SES calls, want the refused one and the one that went out", got)
	}
}

// The fingerprint ignores link targets, so a cleared layout with a bare-IP
// link is held; the automated review leaves it to the owner, whose clear
// sends it.
func TestClearedLayoutWithADeceptiveLinkIsHeld(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	layout := func(href string) string { return `<p>Your receipt <a href="` + href + `">acme.test</a></p>` }
	clearTemplate(t, e, s.id, layout("https://acme.test/r"))
	ok := e.post(s.key, "/api/v1/send", msg("goodlink", map[string]any{"html": layout("https://acme.test/r/2")})).sent(t, http.StatusOK)
	ok.want(t, true, "sent")
	bad := e.post(s.key, "/api/v1/send", msg("badlink", map[string]any{"html": layout("http://203.0.113.5/login")})).sent(t, http.StatusAccepted)
	bad.want(t, true, "held")
	e.reviewHeld(t, 1)
	e.wantEmail(t, s.key, bad.ID, "held", "")
	if err := e.held().Clear(t.Context(), s.id, bad.ID); err != nil {
		t.Fatal(err)
	}
	e.reviewHeld(t, 1)
	e.wantEmail(t, s.key, bad.ID, "sent", "")
}

// A deny cannot overtake a reviewer that holds the lease while it sends:
// the deny waits (its message comes back) and finds the email gone out.
func TestDenyWaitsForTheSendingReviewer(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := t.Context()
	s := newSendWS(t, e, defaultSender())
	req := msg("leased", map[string]any{"html": "<aside><p>Layout under review</p></aside>"})
	held := e.post(s.key, "/api/v1/send", req).sent(t, http.StatusAccepted)
	now := time.Now()
	if err := e.store.Held.LeaseHeld(ctx, s.id, held.ID, now, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	m := sending.ReviewMessage{WorkspaceID: s.id, EmailID: held.ID, Denied: true}
	if err := e.deps.Reviewer.Review(ctx, m); !errors.Is(err, sending.ErrLeased) {
		t.Fatalf("deny during another reviewer's lease: err = %v, want ErrLeased", err)
	}
	e.wantEmail(t, s.key, held.ID, "held", "")
}

// SES took a held email but marking it sent kept failing: the retried
// review does not send it again.
func TestReleaseAfterSESIsNotSentTwice(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := t.Context()
	s := newSendWS(t, e, defaultSender())
	req := msg("marked", map[string]any{"html": "<article><p>Once only</p></article>"})
	held := e.post(s.key, "/api/v1/send", req).sent(t, http.StatusAccepted)
	e.rec.Fail = func(op string) error {
		if op == "TransactWriteItems" {
			return errors.New("dynamodb: throttled")
		}
		return nil
	}
	m := sending.ReviewMessage{WorkspaceID: s.id, EmailID: held.ID}
	if err := e.deps.Reviewer.Review(ctx, m); err == nil {
		t.Fatal("review succeeded although the release kept failing")
	}
	e.rec.Fail = nil
	if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
		t.Fatalf("%d SES sends, want 1", n)
	}
	clock := dynamotest.NewClock(time.Now().Add(time.Minute)) // past the lease
	svc := *e.deps.Sending
	svc.Now = clock.Now
	rv := *e.deps.Reviewer
	rv.Service = &svc
	if err := rv.Review(ctx, m); err != nil {
		t.Fatal(err)
	}
	e.wantEmail(t, s.key, held.ID, "sent", "")
	if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
		t.Errorf("%d SES sends after the retried review, want still 1", n)
	}
	if _, err := e.store.Held.GetHeld(ctx, s.id, held.ID); !errors.Is(err, sending.ErrNotHeld) {
		t.Errorf("held content left behind: err = %v", err)
	}
}

// SES rejected the email but recording it failed: nothing "sent" stays
// behind, and the key is free for a retry.
func TestRejectedButUnrecordedIsUndone(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	e.ses.setFail(func(sending.SendInput) error {
		return &ses.RejectedError{Reason: "bad content", Code: "MessageRejected"}
	})
	e.rec.Fail = func(op string) error {
		if op == "UpdateItem" && e.ses.lastSendDone() {
			return errors.New("dynamodb: connection reset")
		}
		return nil
	}
	key := uuid.NewString()
	req := msg("rejfault", nil)
	r := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key)
	e.rec.Fail = nil
	e.ses.setFail(nil)
	r.wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
	if ids := e.emailIDs(t, s.key); len(ids) != 0 {
		t.Fatalf("emails left after the failed send: %v", ids)
	}
	again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	again.want(t, true, "sent")
}

// Recording a failure again finds its feed item: one email.failed, one
// count.
func TestRecordFailureTwiceIsOneEvent(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := t.Context()
	s := newSendWS(t, e, defaultSender())
	em := e.putEmail(s.id, func(m *email.Email) { m.Status, m.Error = email.StatusFailed, "rejected" })
	for range 2 {
		if err := e.deps.Status.RecordFailure(ctx, em); err != nil {
			t.Fatal(err)
		}
	}
	events, _, _, err := e.store.Events.ListEvents(ctx, s.id, "", 10)
	if err != nil || len(events) != 1 {
		t.Errorf("feed has %d items (err %v), want one email.failed", len(events), err)
	}
}

// switchableFileServer serves /report.pdf on 127.0.0.2 (the address the
// test fetchers reach) with the status in answer: the file on 200.
func switchableFileServer(t *testing.T, answer *atomic.Int32) string {
	t.Helper()
	return allowedServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code := int(answer.Load()); code != http.StatusOK {
			w.WriteHeader(code)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write([]byte("%PDF-1.4 quarterly report"))
	}))
}

// A held email no retry can send (its attachment URL now answers 404) is
// failed by the review with the reason, and recorded as email.failed like
// any email the review does not clear, instead of being retried into the
// dead-letter queue. One whose URL fails for now (503) is retried, and
// goes out once the URL answers again.
func TestReviewFailsWhatNoRetryCanSend(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	var answer atomic.Int32
	answer.Store(http.StatusOK)
	files := switchableFileServer(t, &answer)
	local := e.withFileServerFetcher(t, 5*time.Second)
	// The review refetches attachments: its service reaches the server too.
	svc := *e.deps.Sending
	svc.Attachments = allowedFetcher(5 * time.Second)
	rv := *e.deps.Reviewer
	rv.Service = &svc

	// hold sends an email held for review: layout is markup the workspace
	// has not sent before.
	hold := func(tag, layout string) (sendResp, string) {
		t.Helper()
		req := msg(tag, map[string]any{
			"html":        layout,
			"attachments": []any{map[string]any{"filename": "report.pdf", "url": files + "/report.pdf"}},
		})
		return e.postTo(t, local, s.key, "/api/v1/send", req).sent(t, http.StatusAccepted), req["to"].(string)
	}
	// review hands one review message to the consumer and returns what it
	// asks to be retried.
	review := func(id string) []string {
		t.Helper()
		body, err := json.Marshal(sending.ReviewMessage{WorkspaceID: s.id, EmailID: id})
		if err != nil {
			t.Fatal(err)
		}
		return rv.Handle(routes.WithFunction(t.Context(), routes.Review.Function), []batch.Message{{ID: "m-" + id, Body: string(body), ReceiveCount: 1}})
	}

	gone, goneTo := hold("gone", "<section><p>Your report is attached</p></section>")
	answer.Store(http.StatusNotFound)
	if retry := review(gone.ID); len(retry) != 0 {
		t.Errorf("review of an email whose attachment is gone asks for a retry: %v", retry)
	}
	e.wantEmail(t, s.key, gone.ID, "failed", "URL answered 404")
	if n := len(e.ses.sendsTo(goneTo)); n != 0 {
		t.Errorf("%d SES sends of the failed email", n)
	}
	r := e.get(bearer(s.key), "/api/v1/events")
	var feed struct {
		Data []struct {
			Type string `json:"type"`
			Data struct {
				ID    string  `json:"id"`
				Error *string `json:"error"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &feed); err != nil {
		t.Fatal(err)
	}
	recorded := false
	for _, item := range feed.Data {
		if item.Type == "email.failed" && item.Data.ID == gone.ID && item.Data.Error != nil && strings.Contains(*item.Data.Error, "404") {
			recorded = true
		}
	}
	if !recorded {
		t.Errorf("feed = %s; want email.failed for %s with its reason", r.body, gone.ID)
	}

	answer.Store(http.StatusOK)
	later, laterTo := hold("later", "<section><div><p>Your report is attached</p></div></section>")
	answer.Store(http.StatusServiceUnavailable)
	if retry := review(later.ID); !slices.Equal(retry, []string{"m-" + later.ID}) {
		t.Errorf("review while the URL answers 503 retries %v, want the message", retry)
	}
	e.wantEmail(t, s.key, later.ID, "held", "")
	answer.Store(http.StatusOK)
	svc.Now = dynamotest.NewClock(time.Now().Add(time.Minute)).Now // past the failed try's lease
	if retry := review(later.ID); len(retry) != 0 {
		t.Fatalf("review once the URL answers retries %v", retry)
	}
	e.wantEmail(t, s.key, later.ID, "sent", "")
	if n := len(e.ses.sendsTo(laterTo)); n != 1 {
		t.Errorf("%d SES sends, want 1", n)
	}
}
