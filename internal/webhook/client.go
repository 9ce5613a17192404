package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"

	"code.dny.dev/ssrf"
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
	var v4, v6 []netip.Prefix
	for _, p := range opts.AllowedPrefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	guard := ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...))
	dialer := &net.Dialer{Timeout: timeout, Control: guard.Safe}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			ForceAttemptHTTP2:      true,
			TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 64 << 10,
			MaxIdleConns:           32,
			IdleConnTimeout:        30 * time.Second,
		},
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// describe turns a transport error into a short text safe to show the
// owner: raw Go errors name resolved (possibly internal) addresses.
func describe(err error) string {
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		opErr   *net.OpError
		certErr *tls.CertificateVerificationError
		hostErr x509.HostnameError
		authErr x509.UnknownAuthorityError
		invErr  x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, ssrf.ErrProhibitedIP), errors.Is(err, ssrf.ErrProhibitedNetwork),
		errors.Is(err, ssrf.ErrProhibitedPort), errors.Is(err, ssrf.ErrInvalidHostPort):
		return "blocked: the host's address is not publicly reachable"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "host does not resolve"
	case errors.As(err, &dnsErr):
		return "host could not be resolved"
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invErr):
		return "invalid TLS certificate"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "connection refused or unreachable"
	}
	return "connection failed"
}
