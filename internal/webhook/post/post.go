// Package post makes the HTTP POSTs of webhook deliveries: every
// connection is checked at dial time, after DNS, by the SSRF guard of
// internal/egress (no loopback, private, link-local and metadata, CGNAT,
// multicast, IPv4-mapped IPv6 addresses; any port), no proxy dials for
// us, and a redirect is never followed. It implements webhook.Poster.
package post

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/netip"
	"time"

	"github.com/sesame-mail/sesame/internal/egress"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// Options configures a Client.
type Options struct {
	// Timeout bounds one request; default webhook.DefaultTimeout.
	Timeout time.Duration
	// AllowedPrefixes are networks the guard lets through despite its deny
	// list: tests pass one 127.0.0.2/32 receiver, the local dev stack may
	// pass 127.0.0.0/8. Production passes none.
	AllowedPrefixes []netip.Prefix
}

// Client POSTs deliveries.
type Client struct {
	// HTTP sends the requests; one of one's own must not follow redirects
	// (a 3xx answer is a failed delivery, reported as it is).
	HTTP *http.Client
}

var _ webhook.Poster = (*Client)(nil)

// NewClient returns the guarded client deliveries go through.
func NewClient(o Options) *Client {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = webhook.DefaultTimeout
	}
	return &Client{HTTP: egress.NewClient(egress.Options{
		Timeout: timeout, AllowedPrefixes: o.AllowedPrefixes,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	})}
}

// maxAnswerBody is how much of an answer's body is read (and discarded) so
// the connection can be reused.
const maxAnswerBody = 4 << 10

// Post sends body to url with header and returns the answer's status.
// Errors say in their fail message why no answer came, without the
// addresses Go's error text would name.
func (c *Client) Post(ctx context.Context, url string, header map[string]string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		e := fail.Invalid("url", "invalid endpoint URL")
		e.Err = err
		return 0, e
	}
	for name, value := range header {
		req.Header.Set(name, value)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		e := fail.Unavailable(0, "endpoint %s", egress.Describe(err))
		e.Err = err
		return 0, e
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBody))
	resp.Body.Close()
	return resp.StatusCode, nil
}
