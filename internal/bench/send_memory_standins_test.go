package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	workspaces "github.com/sesame-mail/sesame/internal/workspace"
)

// fileServer serves incompressible files on 127.0.0.2, an address the
// attachment fetcher is told to allow.
type fileServer struct {
	url  string
	mu   sync.Mutex
	data map[int][]byte
}

func newFileServer(t testing.TB) *fileServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	f := &fileServer{data: map[int][]byte{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.file(size)))
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// serve is the URL of a file of size bytes.
func (f *fileServer) serve(size int) string {
	f.file(size)
	return f.url + "/" + strconv.Itoa(size)
}

// file is the file of size bytes: the same bytes each time.
func (f *fileServer) file(size int) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.data[size]; ok {
		return d
	}
	d := make([]byte, size)
	_, _ = rand.NewChaCha8([32]byte{byte(size), byte(size >> 8), byte(size >> 16)}).Read(d)
	f.data[size] = d
	return d
}

// served reports whether data is a file the server served.
func (f *fileServer) served(data []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.data[len(data)]
	return ok && bytes.Equal(d, data)
}

// standInSES takes SES v2 SendEmail calls and reads each raw message as
// its recipient would (inbox.Parse), wanting it whole: well formed, to
// the envelope's recipient, every attachment the file served byte for
// byte. Holding, it answers only once no call has arrived for quiet.
type standInSES struct {
	url     string
	files   *fileServer
	read    sync.Mutex // one message read back at a time
	reading sync.WaitGroup

	mu             sync.Mutex
	hold           bool
	last           time.Time
	held, most     int
	sizes          []int
	problems       []string
	unexpected     int
	acceptedWholly int
}

func newStandInSES(t testing.TB, files *fileServer) *standInSES {
	t.Helper()
	s := &standInSES{files: files}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// reset forgets what was received; hold says whether to hold answers.
func (s *standInSES) reset(hold bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold, s.held, s.most, s.sizes, s.problems, s.unexpected, s.acceptedWholly = hold, 0, 0, nil, nil, 0, 0
}

// received is how many messages arrived whole, the size of each message
// and what was wrong with any call.
func (s *standInSES) received() (whole int, sizes []int, problems []string) {
	s.reading.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	problems = s.problems
	if s.unexpected > 0 {
		problems = append(problems, fmt.Sprintf("%d calls other than SendEmail", s.unexpected))
	}
	return s.acceptedWholly, s.sizes, problems
}

// mostHeld is the most SendEmail calls that were in flight at once.
func (s *standInSES) mostHeld() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most
}

func (s *standInSES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v2/email/outbound-emails" {
		s.mu.Lock()
		s.unexpected++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"message":"the stand-in takes SendEmail only"}`)
		return
	}
	s.mu.Lock()
	s.held++
	s.most = max(s.most, s.held)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.held--
		s.mu.Unlock()
	}()
	body, err := io.ReadAll(r.Body)
	s.mu.Lock()
	s.last = time.Now()
	s.mu.Unlock()
	// Read back after answering: the sender's timeout runs while held.
	s.reading.Go(func() {
		problems, size := s.readBack(body, err)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.problems = append(s.problems, problems...)
		s.sizes = append(s.sizes, size)
		if len(problems) == 0 {
			s.acceptedWholly++
		}
	})
	s.waitQuiet()
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"MessageId":"standin-%d"}`, time.Now().UnixNano())
}

// readBack reads one SendEmail body as the recipient gets its message.
func (s *standInSES) readBack(body []byte, err error) ([]string, int) {
	s.read.Lock()
	defer s.read.Unlock()
	if err != nil {
		return []string{"reading the call: " + err.Error()}, 0
	}
	var in struct {
		Content     struct{ Raw struct{ Data []byte } }
		Destination struct{ ToAddresses []string }
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return []string{"SendEmail body: " + err.Error()}, 0
	}
	m := inbox.Parse(in.Content.Raw.Data)
	problems := m.Defects
	if len(in.Destination.ToAddresses) != 1 || len(m.To) != 1 || m.To[0] != in.Destination.ToAddresses[0] {
		problems = append(problems, fmt.Sprintf("To %v, envelope %v", m.To, in.Destination.ToAddresses))
	}
	if len(m.Attachments) == 0 {
		problems = append(problems, "no attachment")
	}
	for _, a := range m.Attachments {
		if !s.files.served(a.Data) {
			problems = append(problems, fmt.Sprintf("attachment %s (%d bytes) is not the file served", a.Filename, len(a.Data)))
		}
	}
	return problems, len(in.Content.Raw.Data)
}

// waitQuiet holds a call, if holding, until none arrived for quiet.
func (s *standInSES) waitQuiet() {
	for {
		s.mu.Lock()
		wait := time.Until(s.last.Add(quiet))
		hold := s.hold
		s.mu.Unlock()
		if !hold || wait <= 0 {
			return
		}
		time.Sleep(wait)
	}
}

// oneWorkspace is the table of one workspace sending from its verified
// domain, its layouts cleared by review; it takes every write.
type oneWorkspace struct{}

var peakSender = identity.Sender{ID: "snd_peak", Name: "Reports", Email: "hello@demo.sesame.test"}

// peakWorkspace is that workspace.
func peakWorkspace(id string) workspaces.Workspace {
	return workspaces.Workspace{
		ID: id, Name: "Demo", VerifiedDomains: []string{"demo.sesame.test"},
		DefaultSender: &peakSender, TrackingOffProvisioned: true,
	}
}

func (oneWorkspace) LoadContext(_ context.Context, q sending.ContextQuery) (sending.Context, error) {
	return sending.Context{
		Workspace: peakWorkspace(q.WorkspaceID),
		Template:  &sending.Template{Fingerprint: q.Fingerprint, State: sending.TemplateCleared},
	}, nil
}

func (oneWorkspace) MonthlyUsage(context.Context, string, string) (int, error) { return 0, nil }
func (oneWorkspace) CreateEmail(context.Context, email.Email, email.KeptContent, email.ContentRef, *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	return nil, nil
}
func (oneWorkspace) FinishIdempotency(context.Context, string, sending.IdempotencyRecord) error {
	return nil
}
func (oneWorkspace) ReleaseIdempotency(context.Context, string, string) error { return nil }
func (oneWorkspace) FailEmail(context.Context, string, string, string) error  { return nil }
func (oneWorkspace) DeleteEmail(context.Context, string, string) error        { return nil }
func (oneWorkspace) HoldEmail(context.Context, sending.HeldEmail, bool, *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	return nil, nil
}
func (oneWorkspace) DeleteHeld(context.Context, string, string) error { return nil }
func (oneWorkspace) ScheduleEmail(context.Context, sending.HeldEmail, time.Time, *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	return nil, nil
}
func (oneWorkspace) GetEmail(context.Context, string, string) (email.Email, error) {
	return email.Email{}, email.ErrNotFound
}
func (oneWorkspace) CancelScheduled(context.Context, string, string, time.Time) error { return nil }

// liveKey is a live key of the workspace with every scope.
type liveKey struct{}

func (liveKey) Authenticate(_ context.Context, _ string, env apikey.Environment) (apikey.Principal, error) {
	return apikey.Principal{WorkspaceID: "ws_peak", KeyID: "key_peak", Environment: env}, nil
}

// heldEmailID is the held email's id.
const heldEmailID = "0190c0de-0000-7000-8000-00000000c1ea"

// heldEvent is req held (its layout new) as the table stores it, and the
// review queue's message for it as SQS hands it to the review function.
func heldEvent(t testing.TB, req sending.Request) (event, held []byte) {
	t.Helper()
	h := sending.HeldEmail{
		Email: email.Email{
			ID: heldEmailID, WorkspaceID: "ws_peak", To: req.To, Subject: req.Subject,
			Status: email.StatusHeld, Environment: apikey.Live, TrackingMode: email.TrackingFull,
		},
		Fingerprint: "fp_peak", Request: req, From: new(peakSender.Address()).String(),
	}
	held, err := emaildb.GzipJSON(h)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := json.Marshal(sending.ReviewMessage{WorkspaceID: "ws_peak", EmailID: heldEmailID, Fingerprint: h.Fingerprint})
	if err != nil {
		t.Fatal(err)
	}
	event, err = json.Marshal(events.SQSEvent{Records: []events.SQSMessage{{MessageId: "review-1", Body: string(msg)}}})
	if err != nil {
		t.Fatal(err)
	}
	return event, held
}

// heldTable is the table as the review function reads it: the held email
// at path (gzip'd JSON, read anew each time as sendingdb reads its
// chunks), its layout pending, its workspace's, nobody suppressed; it
// takes every write and records each release.
type heldTable struct {
	path     string
	released []email.Status
}

func (s *heldTable) GetHeld(_ context.Context, _, _ string) (sending.HeldEmail, error) {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return sending.HeldEmail{}, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return sending.HeldEmail{}, err
	}
	var h sending.HeldEmail
	return h, json.NewDecoder(zr).Decode(&h)
}

func (s *heldTable) GetTemplate(_ context.Context, _, fingerprint string) (sending.Template, error) {
	return sending.Template{Fingerprint: fingerprint, State: sending.TemplatePending}, nil
}

func (s *heldTable) DecideTemplate(context.Context, string, string, sending.TemplateState, []string, bool) (bool, error) {
	return true, nil
}

func (s *heldTable) ReleaseHeld(_ context.Context, _, _ string, status email.Status, _ string) error {
	s.released = append(s.released, status)
	return nil
}

func (s *heldTable) LeaseHeld(context.Context, string, string, time.Time, time.Time) error {
	return nil
}
func (s *heldTable) ListHeld(context.Context, string, string) ([]string, error)   { return nil, nil }
func (s *heldTable) MarkHeldSent(context.Context, string, string, string) error   { return nil }
func (s *heldTable) StartScheduled(context.Context, string, string, string) error { return nil }
func (s *heldTable) GetWorkspace(_ context.Context, id string) (workspaces.Workspace, error) {
	return peakWorkspace(id), nil
}
func (s *heldTable) Suppressed(context.Context, string, string) (bool, error) { return false, nil }
