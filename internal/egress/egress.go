// Package egress is Sesame's outbound HTTP to hosts a customer names
// (attachment URLs, webhook endpoints): every connection is checked at dial
// time, after DNS, by an SSRF guard, so rebinding and redirects cannot
// reach loopback, private, link-local and metadata, CGNAT, multicast or
// IPv4-mapped IPv6 addresses.
package egress

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

// Options configures a guarded client.
type Options struct {
	// Timeout bounds connect, TLS, the answer's headers and the whole request.
	Timeout time.Duration
	// AllowedPrefixes are networks the guard lets through despite its deny
	// list: tests pass one 127.0.0.2/32 server and the local dev stack may
	// pass loopback. Production passes none.
	AllowedPrefixes []netip.Prefix
	// CheckRedirect is the client's redirect policy (see http.Client).
	CheckRedirect func(req *http.Request, via []*http.Request) error
	// KeepEncoding turns off transparent gzip, keeping bodies as served.
	KeepEncoding bool
}

// NewClient returns an http.Client whose connections can only reach public
// addresses (plus o.AllowedPrefixes), on any port, and never through a
// proxy (a proxy would dial for us and bypass the guard).
func NewClient(o Options) *http.Client {
	var v4, v6 []netip.Prefix
	for _, p := range o.AllowedPrefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	// The guard's defaults deny IANA special-purpose IPv4 ranges and all
	// IPv6 outside 2000::/3. Any port is allowed: the host is public by
	// then, and files and hooks are often served on e.g. :8443.
	guard := ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...))
	dialer := &net.Dialer{Timeout: o.Timeout, Control: guard.Safe}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			ForceAttemptHTTP2:      true,
			TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    o.Timeout,
			ResponseHeaderTimeout:  o.Timeout,
			MaxResponseHeaderBytes: 64 << 10,
			DisableCompression:     o.KeepEncoding,
			MaxIdleConns:           32,
			IdleConnTimeout:        30 * time.Second,
		},
		Timeout:       o.Timeout,
		CheckRedirect: o.CheckRedirect,
	}
}

// Blocked reports whether err is the guard refusing an address.
func Blocked(err error) bool {
	for _, target := range []error{ssrf.ErrProhibitedIP, ssrf.ErrProhibitedNetwork, ssrf.ErrProhibitedPort, ssrf.ErrInvalidHostPort} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// Permanent reports whether a request that failed with err would fail
// alike if tried again later: the guard refused the address, the name does
// not exist, or the certificate is invalid. Timeouts, refused connections
// and other network faults may pass.
func Permanent(err error) bool {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		hostErr x509.HostnameError
		authErr x509.UnknownAuthorityError
		invErr  x509.CertificateInvalidError
	)
	switch {
	case Blocked(err):
		return true
	case errors.As(err, &dnsErr):
		return dnsErr.IsNotFound
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invErr):
		return true
	}
	return false
}

// Describe says why a request failed as a predicate safe to show a
// customer ("URL " + Describe(err)): raw Go errors name resolved, possibly
// internal, addresses.
func Describe(err error) string {
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
	case Blocked(err):
		return "is not publicly reachable"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "does not resolve"
	case errors.As(err, &dnsErr):
		return "could not be resolved"
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invErr):
		return "has an invalid TLS certificate"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "refused the connection or is unreachable"
	}
	return "could not be reached"
}
