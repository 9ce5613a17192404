package unsubscribe

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// PathPrefix is where the public unsubscribe pages live, outside /api/v1.
const PathPrefix = "/unsubscribe/"

// Links builds the unsubscribe link of a recipient: the stack's public
// base URL, PathPrefix and the signed token.
type Links struct {
	// BaseURL is the stack's public URL (the API stage, or the dev
	// server), without a trailing slash; see CheckBaseURL.
	BaseURL string
	Signer  Signer
}

// URL is the unsubscribe link of t.
func (l Links) URL(t Token) (string, error) {
	if err := CheckBaseURL(l.BaseURL); err != nil {
		return "", err
	}
	token, err := l.Signer.Sign(t)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(l.BaseURL, "/") + PathPrefix + token, nil
}

// CheckBaseURL accepts an absolute https URL with no query or fragment
// (RFC 8058: a one-click link is https), or an http URL of a loopback
// host, which only the local stack serves.
func CheckBaseURL(base string) error {
	u, err := url.Parse(base)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(base, " <>,\"'"):
		return fmt.Errorf("unsubscribe: public base URL %q is not an absolute URL without query or fragment", base)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return errors.New("unsubscribe: the public base URL must be https (http only on a loopback host, for the local stack)")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
