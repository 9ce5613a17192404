package webhook

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/sesame-mail/sesame/internal/egress"
)

// DefaultTimeout bounds one delivery: connect, TLS, request and answer.
const DefaultTimeout = 10 * time.Second

// ClientOptions configures the delivery HTTP client.
type ClientOptions struct {
	// Timeout bounds one request; default DefaultTimeout.
	Timeout time.Duration
	// AllowedPrefixes are networks the guard lets through despite its deny
	// list: tests pass one 127.0.0.2/32 receiver, the local dev stack may
	// pass 127.0.0.0/8. Production passes none.
	AllowedPrefixes []netip.Prefix
}

// NewClient returns the client deliveries go through: every connection is
// checked at dial time, after DNS, by the SSRF guard (no loopback, private,
// link-local and metadata, CGNAT, multicast, IPv4-mapped IPv6 addresses;
// any port), no proxy (it would dial for us), and redirects are never
// followed: a 3xx answer comes back as is and counts as a failure.
func NewClient(opts ClientOptions) *http.Client {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return egress.NewClient(egress.Options{
		Timeout: timeout, AllowedPrefixes: opts.AllowedPrefixes,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	})
}

// describe turns a transport error into a short text safe to show the
// owner in the attempt log.
func describe(err error) string { return "endpoint " + egress.Describe(err) }
