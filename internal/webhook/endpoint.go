package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"code.dny.dev/ssrf"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// secretBytes is the entropy of a signing secret.
const secretBytes = 32

// maxURLLength bounds an endpoint URL.
const maxURLLength = 2048

// NewSecret returns a fresh signing secret: "whsec_" and 32 random bytes in
// standard base64 without padding (43 characters). Receivers use the whole
// string, prefix included, as the HMAC key; they never decode it.
func NewSecret() string {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return SecretPrefix + base64.RawStdEncoding.EncodeToString(b)
}

// NewEndpoint validates rawURL and the event types and returns a new,
// enabled endpoint with a fresh id and secret. Types empty means all six.
// allowInsecureHTTP admits http:// and loopback hosts (local development
// only; the dispatcher's dial-time guard still refuses loopback unless the
// dev stack allows it).
func NewEndpoint(workspaceID, rawURL string, types []string, allowInsecureHTTP bool) (Endpoint, error) {
	u, err := ValidateURL(rawURL, allowInsecureHTTP)
	if err != nil {
		return Endpoint{}, err
	}
	events, err := ParseEventTypes(types)
	if err != nil {
		return Endpoint{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Endpoint{}, err
	}
	return Endpoint{
		ID: id.String(), WorkspaceID: workspaceID, URL: u.String(), Secret: NewSecret(),
		Events: events, Enabled: true, CreatedAt: time.Now().UTC(),
	}, nil
}

// ParseEventTypes checks every name is one of the six event types and
// returns them once each, in the spec's order; none gives nil (all types).
func ParseEventTypes(names []string) ([]event.Type, error) {
	var out []event.Type
	for _, n := range names {
		t := event.Type(strings.TrimSpace(n))
		if t == "" {
			continue
		}
		if !t.Valid() {
			return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownEventType, string(t), typeList())
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b event.Type) int {
		return slices.Index(event.Types, a) - slices.Index(event.Types, b)
	})
	return out, nil
}

func typeList() string {
	s := make([]string, len(event.Types))
	for i, t := range event.Types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// ValidateURL checks an endpoint URL at add time: absolute https (http only
// with allowInsecureHTTP), a host, no userinfo, and no IP literal in a range
// the dial-time guard refuses (private, link-local and metadata, CGNAT,
// multicast, IPv4-mapped IPv6, …; loopback only with allowInsecureHTTP).
// Host names are not resolved here: the guard checks the address actually
// dialled at every delivery.
func ValidateURL(rawURL string, allowInsecureHTTP bool) (*url.URL, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidURL}, args...)...)
	}
	if len(rawURL) > maxURLLength {
		return nil, bad("longer than %d characters", maxURLLength)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, bad("not a URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowInsecureHTTP {
			return nil, bad("must use https (http only with --allow-insecure-http, for local development)")
		}
	default:
		return nil, bad("must be an absolute https URL")
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, bad("has no host")
	}
	if u.User != nil {
		return nil, bad("must not contain a user name or password")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, bad("has an invalid port")
		}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		if !allowInsecureHTTP {
			return nil, bad("host is loopback")
		}
		return u, nil
	}
	if strings.Contains(host, "%") {
		return nil, bad("host has an IPv6 zone")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := guardIP(ip, allowInsecureHTTP); err != nil {
			return nil, bad("address %s is not publicly reachable", ip)
		}
	} else if strings.ContainsAny(host, "[]:") {
		return nil, bad("has an invalid host")
	}
	return u, nil
}

// guardIP applies the dial-time guard's rules to an IP literal.
func guardIP(ip netip.Addr, allowLoopback bool) error {
	var opts []ssrf.Option
	opts = append(opts, ssrf.WithAnyPort())
	if allowLoopback {
		opts = append(opts,
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128")))
	}
	network := "tcp4"
	if ip.Is6() {
		network = "tcp6"
	}
	return ssrf.New(opts...).Safe(network, netip.AddrPortFrom(ip, 443).String(), nil)
}
