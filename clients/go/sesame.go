// Package sesame is the Go client of the Sesame email API.
//
//	client, err := sesame.New("https://api.example.com/prod", os.Getenv("SESAME_KEY"))
//	res, err := client.Send(ctx, sesame.Email{To: "ann@example.org", Subject: "Hi", Html: "<p>Hi</p>"})
//
// Calls that fail with an API answer return an *Error. A 429 or 503 with a
// Retry-After is retried after that delay (at most MaxRetries times, with
// the same Idempotency-Key). Lists are iterators over every page.
// Everything the document describes is reachable through Client.API, the
// generated layer (package api).
package sesame

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/clients/go/api"
)

// The API's types, under the names a caller reads.
type (
	// Email is what Send sends.
	Email = api.SendRequest
	// SentEmail is an email as the API reports it (GET /emails/{id}).
	SentEmail  = api.Email
	SendResult = api.SendResult
	// Tag is a name/value pair an email carries (Email.Tags), returned on
	// the email and in its webhooks' data.
	Tag                    = api.Tag
	Warning                = api.Warning
	Attachment             = api.Attachment
	ClickList              = api.ClickList
	Event                  = api.Event
	Domain                 = api.Domain
	Contact                = api.Contact
	ContactCreate          = api.ContactCreate
	ContactUpdate          = api.ContactUpdate
	Suppression            = api.Suppression
	SuppressionRequest     = api.SuppressionRequest
	Campaign               = api.Campaign
	MetricsReport          = api.MetricsReport
	Segment                = api.Segment
	SegmentCreate          = api.SegmentCreate
	BulkDraftRequest       = api.BulkDraftRequest
	BulkDraftResult        = api.BulkDraftResult
	DeliverabilityRequest  = api.DeliverabilityRequest
	DeliverabilityResult   = api.DeliverabilityResult
	AutomationEventRequest = api.AutomationEventRequest
	AutomationEventResult  = api.AutomationEventResult

	ListEmailsParams       = api.ListEmailsParams
	ListEventsParams       = api.ListEventsParams
	ListDomainsParams      = api.ListDomainsParams
	ListContactsParams     = api.ListContactsParams
	ListSuppressionsParams = api.ListSuppressionsParams
	ListCampaignsParams    = api.ListCampaignsParams
	GetMetricsParams       = api.GetMetricsParams
)

// Defaults of the retry policy.
const (
	DefaultMaxRetries   = 3
	DefaultMaxRetryWait = 60 * time.Second
)

// Client calls one Sesame deployment with one API key. It is safe for
// concurrent use.
type Client struct {
	// API is the generated low-level client, with the key and the retry
	// policy applied: every operation of the document, answers unparsed.
	API *api.Client
}

type options struct {
	http       api.HttpRequestDoer
	maxRetries int
	maxWait    time.Duration
	sleep      func(context.Context, time.Duration) error
}

// Option changes a Client's defaults.
type Option func(*options)

// WithHTTPClient sends the requests through c (default: a client with a
// 30 s timeout).
func WithHTTPClient(c api.HttpRequestDoer) Option { return func(o *options) { o.http = c } }

// WithMaxRetries bounds the retries of one call on 429 and 503 (0: none).
func WithMaxRetries(n int) Option { return func(o *options) { o.maxRetries = max(n, 0) } }

// WithMaxRetryWait is the longest Retry-After the client waits out; a
// longer one is returned as the *Error at once.
func WithMaxRetryWait(d time.Duration) Option { return func(o *options) { o.maxWait = d } }

// WithSleep replaces how the client waits out a Retry-After (to log the
// wait, or to move a test's clock).
func WithSleep(fn func(context.Context, time.Duration) error) Option {
	return func(o *options) { o.sleep = fn }
}

// New returns a client of the deployment at baseURL (the stack's ApiUrl,
// e.g. https://<id>.execute-api.<region>.amazonaws.com/prod, or
// http://127.0.0.1:8080 for `make dev`) using key (ps_live_… or ps_test_…).
func New(baseURL, key string, opts ...Option) (*Client, error) {
	if key == "" {
		return nil, errors.New("sesame: an API key is required")
	}
	o := options{http: &http.Client{Timeout: 30 * time.Second}, maxRetries: DefaultMaxRetries, maxWait: DefaultMaxRetryWait, sleep: sleep}
	for _, opt := range opts {
		opt(&o)
	}
	doer := &retrier{next: o.http, max: o.maxRetries, maxWait: o.maxWait, sleep: o.sleep}
	c, err := api.NewClient(strings.TrimSuffix(baseURL, "/"), api.WithHTTPClient(doer),
		api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("User-Agent", "sesame-go")
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("sesame: %w", err)
	}
	return &Client{API: c}, nil
}

// decode returns the JSON answer as T, or the API's *Error.
func decode[T any](res *http.Response, err error) (T, error) {
	var v T
	if err != nil {
		return v, fmt.Errorf("sesame: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return v, errorFrom(res)
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		return v, fmt.Errorf("sesame: reading the %d answer: %w", res.StatusCode, err)
	}
	return v, nil
}

// data unwraps the {"data": …} answers.
func data[T any](res *http.Response, err error) (T, error) {
	v, err := decode[struct {
		Data T `json:"data"`
	}](res, err)
	return v.Data, err
}
