// Package fetch resolves the URL attachments of an outgoing email: a GET
// of each URL through the dial-time SSRF guard of internal/egress, with
// size and time caps. It implements the Resolver that sending declares.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/egress"
	"github.com/sesame-mail/sesame/internal/fail"
)

const (
	defaultMaxBytes     = 20 << 20 // the spec's message size figure
	defaultTimeout      = 10 * time.Second
	defaultMaxRedirects = 3
	defaultTotalTimeout = 18 * time.Second
	userAgent           = "Sesame-Attachment-Fetcher/1"
	// fetchConcurrency bounds parallel fetches: sequential fetches of 20 slow
	// URLs would outlast API Gateway's 29 s integration timeout.
	fetchConcurrency = 4
)

// Options configures a Fetcher. Zero values take the defaults.
type Options struct {
	// MaxBytes caps each URL's body; default 20 MB (the message ceiling;
	// the caller checks the whole message).
	MaxBytes int64
	// MaxTotalBytes caps all attachment data of one Resolve, inline content
	// included, so 20 big URLs cannot hold 20×MaxBytes in memory; default
	// MaxBytes, as more than that can never fit in one message.
	MaxTotalBytes int64
	// Timeout bounds one URL's whole fetch, redirects and body included;
	// default 10 s.
	Timeout time.Duration
	// TotalTimeout bounds all fetches of one Resolve together; default 18 s.
	TotalTimeout time.Duration
	// MaxRedirects is how many redirects one fetch follows; default 3,
	// negative follows none. Every target is dialled through the guard.
	MaxRedirects int
	// AllowedPrefixes are networks the guard lets through despite its deny
	// list. Tests pass one 127.0.0.2/32 server; the local dev stack may
	// pass 127.0.0.0/8 (dev only). Production passes none.
	AllowedPrefixes []netip.Prefix
}

// Fetcher fetches URL attachments at send time through a dial-time SSRF
// guard. It is safe for concurrent use.
type Fetcher struct {
	client       *http.Client
	maxBytes     int64
	maxTotal     int64
	timeout      time.Duration
	totalTimeout time.Duration
	maxRedirects int
}

// New returns a Fetcher whose connections can only reach public
// addresses (plus opts.AllowedPrefixes).
func New(opts Options) *Fetcher {
	f := &Fetcher{
		maxBytes:     opts.MaxBytes,
		maxTotal:     opts.MaxTotalBytes,
		timeout:      opts.Timeout,
		totalTimeout: opts.TotalTimeout,
		maxRedirects: opts.MaxRedirects,
	}
	if f.maxBytes <= 0 {
		f.maxBytes = defaultMaxBytes
	}
	if f.maxTotal <= 0 {
		f.maxTotal = f.maxBytes
	}
	if f.timeout <= 0 {
		f.timeout = defaultTimeout
	}
	if f.totalTimeout <= 0 {
		f.totalTimeout = defaultTotalTimeout
	}
	switch {
	case f.maxRedirects == 0:
		f.maxRedirects = defaultMaxRedirects
	case f.maxRedirects < 0:
		f.maxRedirects = 0
	}

	f.client = egress.NewClient(egress.Options{
		Timeout: f.timeout, AllowedPrefixes: opts.AllowedPrefixes,
		CheckRedirect: f.checkRedirect, KeepEncoding: true, // keep the file's bytes as served
	})
	return f
}

var (
	errTooManyRedirects = errors.New("too many redirects")
	errRedirectScheme   = errors.New("redirect to a non-http(s) URL")
	errTotalExceeded    = errors.New("attachments exceed the total budget")
)

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.maxRedirects {
		return errTooManyRedirects
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return errRedirectScheme
	}
	return nil
}

// Resolve validates the attachments, decodes inline content and fetches URL
// content, returning the files in input order. Client faults come back as
// *fail.Error: invalid (param attachments) naming the attachment, or too
// large when all attachments exceed MaxTotalBytes. A fetch that may work
// later (the server answered 5xx, 408 or 429; a timeout; a network fault)
// is marked transient; the rest (4xx, a blocked address, a name that does
// not exist, too large, empty) are permanent. Any other error (ctx
// cancelled) is internal. Fetched data stays in memory only.
func (f *Fetcher) Resolve(ctx context.Context, in []attachment.Input) ([]attachment.File, error) {
	inline, err := attachment.DecodeInline(in)
	if err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, nil
	}

	files := make([]attachment.File, len(in))
	var left atomic.Int64
	left.Store(f.maxTotal)
	for i, a := range in {
		files[i].Filename = a.Filename
		if a.Content != nil {
			files[i].Data = inline[i]
			files[i].ContentType = attachment.ContentType(a, "")
			left.Add(-int64(len(inline[i])))
		}
	}
	if left.Load() < 0 {
		return nil, f.totalError()
	}

	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// All fetches together end in time for the send to answer before API
	// Gateway's 29 s: slow URLs are the client's 400, not a gateway 504.
	slow := fail.Invalid(attachment.Param,
		"attachment URLs took more than %s to fetch together; host them somewhere faster", f.totalTimeout)
	slow.Transient = true
	fctx, stop := context.WithTimeoutCause(fctx, f.totalTimeout, slow)
	defer stop()
	sem := make(chan struct{}, fetchConcurrency)
	var wg sync.WaitGroup
	for i, a := range in {
		if a.URL == nil {
			continue
		}
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-fctx.Done():
				return
			}
			data, ct, err := f.fetch(fctx, *a.URL, &left)
			if err != nil {
				// The first failure stops the others: the send fails anyway.
				cancel(f.clientError(i, a.Filename, err))
				return
			}
			files[i].Data = data
			files[i].ContentType = attachment.ContentType(a, ct)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := context.Cause(fctx); err != nil {
		return nil, err
	}
	return files, nil
}

// fetchError is a failed fetch: a client-safe reason, the raw cause, and
// whether the same fetch may work later.
type fetchError struct {
	reason    string
	cause     error
	transient bool
}

func (e *fetchError) Error() string { return e.reason + ": " + e.cause.Error() }
func (e *fetchError) Unwrap() error { return e.cause }

func (f *Fetcher) clientError(i int, filename string, err error) error {
	if errors.Is(err, errTotalExceeded) {
		return f.totalError()
	}
	e := attachment.Invalid(i, filename, "URL could not be fetched")
	e.Err, e.Transient = err, true
	var fe *fetchError
	if errors.As(err, &fe) {
		e = attachment.Invalid(i, filename, "%s", fe.reason)
		e.Err, e.Transient = err, fe.transient
	}
	return e
}

func (f *Fetcher) totalError() error {
	return fail.Errorf(fail.KindTooLarge, "", attachment.Param,
		"attachments total more than %s, more than one message can carry", attachment.Size(f.maxTotal))
}

// fetch GETs one URL. left is the shared byte budget of the whole Resolve.
// Errors are *fetchError wrapping the raw cause.
func (f *Fetcher) fetch(ctx context.Context, rawURL string, left *atomic.Int64) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", &fetchError{reason: "url is not a valid URL", cause: err}
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "*/*")

	resp, err := f.client.Do(req)
	if err != nil {
		return nil, "", f.classify(err)
	}
	// Close without draining: the rest of an unwanted body is not worth
	// reading.
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", &fetchError{
			reason: fmt.Sprintf("URL answered %d", resp.StatusCode), cause: fmt.Errorf("status %s", resp.Status),
			transient: answerMayChange(resp.StatusCode),
		}
	}
	tooBig := &fetchError{reason: fmt.Sprintf("URL exceeds %s", attachment.Size(f.maxBytes)), cause: fmt.Errorf("body over %d bytes", f.maxBytes)}
	if resp.ContentLength > f.maxBytes {
		return nil, "", tooBig
	}
	// One byte past the cap tells "exactly MaxBytes" from "more".
	data, err := io.ReadAll(&budgetReader{r: io.LimitReader(resp.Body, f.maxBytes+1), left: left})
	// This URL's own cap first: with one URL both caps trip on the same byte.
	if int64(len(data)) > f.maxBytes {
		return nil, "", tooBig
	}
	if err != nil {
		return nil, "", f.classify(err)
	}
	if len(data) == 0 {
		return nil, "", &fetchError{reason: "URL returned an empty file", cause: errors.New("empty body")}
	}
	return data, resp.Header.Get("Content-Type"), nil
}

// answerMayChange reports whether an HTTP error status may be followed by
// the file when asked again: the server's own faults (5xx) and its "not
// now" (408 Request Timeout, 429 Too Many Requests). Other 4xx are the
// URL's: it will answer the same.
func answerMayChange(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}

// classify turns a transport error into a client-safe reason. Raw Go error
// text names resolved (possibly internal) addresses, so it never reaches the
// client.
func (f *Fetcher) classify(err error) error {
	reason := "URL " + egress.Describe(err)
	transient := !egress.Permanent(err)
	switch {
	case errors.Is(err, errTotalExceeded):
		return err
	case errors.Is(err, errTooManyRedirects) && f.maxRedirects == 0:
		reason, transient = "URL redirected; redirects are not followed", false
	case errors.Is(err, errTooManyRedirects):
		reason, transient = fmt.Sprintf("URL redirected more than %d times", f.maxRedirects), false
	case errors.Is(err, errRedirectScheme):
		reason, transient = "URL redirected to a non-HTTP URL", false
	}
	return &fetchError{reason: reason, cause: err, transient: transient}
}

// budgetReader charges every byte read to the Resolve-wide budget.
type budgetReader struct {
	r    io.Reader
	left *atomic.Int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.left.Add(-int64(n)) < 0 {
		return n, errTotalExceeded
	}
	return n, err
}
