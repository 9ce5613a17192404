package sendinghttp_test

// Fuzz targets of the send routes: a request body goes through the real
// handler, validation, plan and composition, over fakes of the store, the
// queue and SES. Whatever the body, the answer is a refusal the API table
// knows (never a 500), and an email handed to SES is a message that reads
// back with the recipient, sender, reply-to and subject asked for, and
// whose display names show no address on another domain.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// The workspace every fuzzed request sends from.
var (
	defaultSender = identity.Sender{ID: "snd_default", Name: "Demo", Email: "hello@demo.sesame.test", ReplyTo: []string{"support@demo.sesame.test"}}
	billing       = identity.Sender{ID: "snd_1", Name: "Billing", Email: "billing@demo.sesame.test"}
)

// store reads one workspace (sender snd_1, a cleared template) and takes
// every write.
type store struct{}

func (store) LoadContext(_ context.Context, q sending.ContextQuery) (sending.Context, error) {
	c := sending.Context{
		Workspace: workspace.Workspace{
			ID: q.WorkspaceID, Name: "Demo", VerifiedDomains: []string{"demo.sesame.test"},
			DefaultSender: &defaultSender, TrackingOffProvisioned: true,
		},
		Template: &sending.Template{Fingerprint: q.Fingerprint, State: sending.TemplateCleared},
	}
	if q.SenderID == billing.ID {
		c.Sender = &billing
	}
	return c, nil
}

func (store) MonthlyUsage(context.Context, string, string) (int, error) { return 0, nil }

func (store) CreateEmail(context.Context, email.Email, email.KeptContent, email.ContentRef, *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	return nil, nil
}
func (store) FinishIdempotency(context.Context, string, sending.IdempotencyRecord) error { return nil }
func (store) ReleaseIdempotency(context.Context, string, string) error                   { return nil }
func (store) FailEmail(context.Context, string, string, string) error                    { return nil }
func (store) DeleteEmail(context.Context, string, string) error                          { return nil }
func (store) HoldEmail(context.Context, sending.HeldEmail, bool, *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	return nil, nil
}
func (store) DeleteHeld(context.Context, string, string) error { return nil }
func (store) ScheduleEmail(context.Context, sending.HeldEmail, time.Time, *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	return nil, nil
}
func (store) GetEmail(context.Context, string, string) (email.Email, error) {
	return email.Email{}, email.ErrNotFound
}
func (store) CancelScheduled(context.Context, string, string, time.Time) error { return nil }

// transport keeps what was handed to SES, by email id.
type transport struct {
	mu   sync.Mutex
	sent map[string]sending.SendInput
}

func (t *transport) Send(_ context.Context, in sending.SendInput) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sent[in.Tags["email_id"]] = in
	return "ses-message-id", nil
}

// resolver decodes inline attachments and serves every URL one small file.
type resolver struct{}

func (resolver) Resolve(_ context.Context, in []attachment.Input) ([]attachment.File, error) {
	inline, err := attachment.DecodeInline(in)
	if err != nil {
		return nil, err
	}
	files := make([]attachment.File, len(in))
	for i, a := range in {
		data := inline[i]
		if data == nil {
			data = []byte("%PDF-1.4\n%%EOF\n")
		}
		files[i] = attachment.File{Filename: a.Filename, ContentType: attachment.ContentType(a, ""), Data: data}
	}
	return files, nil
}

type queue struct{}

func (queue) Enqueue(context.Context, any) error { return nil }

func newHandlers() (sendinghttp.Handlers, *transport) {
	t := &transport{sent: map[string]sending.SendInput{}}
	return sendinghttp.Handlers{Service: &sending.Service{
		Store: store{}, Transport: t, Attachments: resolver{}, Review: queue{}, Build: raw.Build,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}}, t
}

// serve posts body to path (the send or the batch route) as a live key of
// the workspace would. A refusal must be one the API table maps, naming
// the field at fault (only a size limit has none); it answers nil.
func serve(t *testing.T, path string, body []byte) (*httptest.ResponseRecorder, *transport) {
	t.Helper()
	h, sent := newHandlers()
	handle := h.Send
	if path == "/api/v1/send/batch" {
		handle = h.Batch
	}
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r = r.WithContext(httpapi.WithPrincipal(r.Context(), apikey.Principal{WorkspaceID: "ws_fuzz", KeyID: "key_1", Environment: apikey.Live}))
	w := httptest.NewRecorder()
	err := handle(w, r)
	if err == nil {
		return w, sent
	}
	e, ok := fail.As(err)
	if _, mapped := httpapi.ProblemOf(err); !ok || !mapped {
		t.Fatalf("body %q: answered with a fault, a 500: %v", body, err)
	}
	if e.Param == "" && e.Kind != fail.KindTooLarge {
		t.Fatalf("body %q: refusal without a param: %v", body, err)
	}
	return nil, sent
}

// want is what a message must carry: the request read as the service
// reads it, and the sender it resolves to.
type want struct {
	to, subject string
	from        string
	replyTo     []mail.Address
}

func wanted(t *testing.T, raw []byte) want {
	t.Helper()
	var r sending.Request
	if err := httpapi.DecodeValue(raw, &r); err != nil {
		t.Fatalf("an accepted request does not decode: %v", err)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("an accepted request does not validate: %v", err)
	}
	w := want{to: r.To, subject: r.Subject, from: defaultSender.Email}
	replyTo := []string(r.ReplyTo)
	switch {
	case r.SenderID != "":
		w.from = billing.Email
	case r.From != "":
		a, err := compose.ParseAddress(r.From)
		if err != nil {
			t.Fatalf("an accepted from does not parse: %v", err)
		}
		w.from = a.Address
	default:
		if len(replyTo) == 0 {
			replyTo = defaultSender.ReplyTo
		}
	}
	for _, s := range replyTo {
		a, err := compose.ParseAddress(s)
		if err != nil {
			t.Fatalf("an accepted reply_to does not parse: %v", err)
		}
		w.replyTo = append(w.replyTo, a)
	}
	return w
}

// headers a composed message may carry: anything else was injected.
var headers = map[string]bool{
	"From": true, "To": true, "Reply-To": true, "Subject": true, "Date": true,
	"Message-Id": true, "Mime-Version": true, "Content-Type": true,
}

// checkMessage reads back what SES was handed.
func checkMessage(t *testing.T, in sending.SendInput, w want) {
	t.Helper()
	for i, line := range bytes.Split(in.Raw, []byte("\r\n")) {
		if len(line) > 998 {
			t.Fatalf("line %d is %d octets", i, len(line))
		}
	}
	head, _, _ := bytes.Cut(in.Raw, []byte("\r\n\r\n"))
	if bytes.Count(head, []byte("\n")) != bytes.Count(head, []byte("\r\n")) || bytes.Contains(bytes.ReplaceAll(head, []byte("\r\n"), nil), []byte("\r")) {
		t.Fatalf("bare CR or LF in the header:\n%s", head)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(in.Raw))
	if err != nil {
		t.Fatalf("message does not parse: %v\n%s", err, head)
	}
	for k := range msg.Header {
		if !headers[k] {
			t.Fatalf("unexpected header %s:\n%s", k, head)
		}
	}
	if to, err := msg.Header.AddressList("To"); err != nil || len(to) != 1 || to[0].Address != w.to || in.To != w.to {
		t.Fatalf("To = %v (%v), envelope %s; want %s", to, err, in.To, w.to)
	}
	from, err := msg.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Address != w.from {
		t.Fatalf("From = %v (%v), want %s", from, err, w.from)
	}
	var replyTo []mail.Address
	if msg.Header.Get("Reply-To") != "" {
		list, err := msg.Header.AddressList("Reply-To")
		if err != nil {
			t.Fatalf("Reply-To %q: %v", msg.Header.Get("Reply-To"), err)
		}
		for _, a := range list {
			replyTo = append(replyTo, *a)
		}
	}
	if fmt.Sprint(replyTo) != fmt.Sprint(w.replyTo) {
		t.Fatalf("Reply-To = %v, want %v", replyTo, w.replyTo)
	}
	for _, a := range append(replyTo, *from[0]) {
		if _, err := compose.ParseSender(a.String()); errors.Is(err, compose.ErrForeignName) {
			t.Fatalf("%s goes out: %v", a.String(), err)
		}
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != w.subject {
		t.Fatalf("Subject reads back as %q (%v), want %q\n%s", subject, err, w.subject, head)
	}
}

// FuzzSendBody: decode, validate, plan and compose one POST /send body.
func FuzzSendBody(f *testing.F) {
	f.Add([]byte(`{"to":"ann@example.org","subject":"Hello","html":"<p>Hi</p>"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		w, sent := serve(t, "/api/v1/send", body)
		if w == nil {
			return
		}
		var out sending.Response
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || (w.Code != http.StatusOK && w.Code != http.StatusAccepted) {
			t.Fatalf("answer %d %s (%v)", w.Code, w.Body, err)
		}
		in, ok := sent.sent[out.ID]
		if out.Status != email.StatusSent {
			return // held for its links or brands: composed, not handed to SES
		}
		if !ok {
			t.Fatalf("answered sent, nothing handed to SES: %s", w.Body)
		}
		checkMessage(t, in, wanted(t, body))
	})
}

// FuzzBatchBody: the same for POST /send/batch, item by item: no item is
// a fault, every refusal names its item.
func FuzzBatchBody(f *testing.F) {
	f.Add([]byte(`{"emails":[{"to":"ann@example.org","subject":"Hello","html":"<p>Hi</p>"},{"to":"x"}]}`))
	f.Add([]byte(`{"emails":[{"to":"ann@example.org","subject":"Hello","html":"<p>Hi</p>","Foo":1}]}`))
	f.Add([]byte(`{"emails":[{"to":"ann@example.org","TO":"bob@example.org","subject":"Hello","html":"<p>Hi</p>"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		w, sent := serve(t, "/api/v1/send/batch", body)
		if w == nil {
			return
		}
		var out struct {
			Data []struct {
				Index int `json:"index"`
				sending.Response
				Error *httpapi.ItemError `json:"error"`
			} `json:"data"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusOK {
			t.Fatalf("answer %d %s (%v)", w.Code, w.Body, err)
		}
		var req sendinghttp.BatchRequest
		if err := json.Unmarshal(body, &req); err != nil || len(req.Emails) != len(out.Data) {
			t.Fatalf("%d items answered for %d emails (%v)", len(out.Data), len(req.Emails), err)
		}
		for i, it := range out.Data {
			prefix := fmt.Sprintf("emails[%d]", i)
			switch {
			case it.Index != i:
				t.Fatalf("item %d has index %d", i, it.Index)
			case it.Error != nil:
				if it.Error.Code == httpapi.CodeInternal || it.Error.Param == nil || !strings.HasPrefix(*it.Error.Param, prefix) {
					t.Fatalf("item %d: %s %v %q, want a refusal naming %s", i, it.Error.Code, deref(it.Error.Param), it.Error.Message, prefix)
				}
			case it.Status == email.StatusSent:
				in, ok := sent.sent[it.ID]
				if !ok {
					t.Fatalf("item %d answered sent, nothing handed to SES", i)
				}
				checkMessage(t, in, wanted(t, req.Emails[i]))
			}
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
