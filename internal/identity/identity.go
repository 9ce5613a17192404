// Package identity is what a workspace sends from: its domains, verified
// with SES (Easy DKIM), and its senders, addresses on those domains. Its
// routes are served by identityhttp.
package identity

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
)

// DomainStatus is the verification state of a sending domain.
type DomainStatus string

const (
	DomainPending  DomainStatus = "pending"
	DomainVerified DomainStatus = "verified"
	DomainFailed   DomainStatus = "failed"
)

// DNSRecord is a record the owner publishes to verify a domain.
type DNSRecord struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ProviderStatus is what the email provider (SES) knows of a domain
// identity.
type ProviderStatus struct {
	Verified   bool   // verified for sending
	DKIMStatus string // PENDING, SUCCESS, FAILED, TEMPORARY_FAILURE, NOT_STARTED
	Records    []DNSRecord
}

// Domain is a sending domain of a workspace.
type Domain struct {
	ID          string       `json:"id"`
	WorkspaceID string       `json:"-"`
	Name        string       `json:"name"`
	Status      DomainStatus `json:"status"`
	Records     []DNSRecord  `json:"records"`
	CreatedAt   time.Time    `json:"created_at"`
	VerifiedAt  *time.Time   `json:"verified_at"`
}

// Sender is a from address of a workspace, with its default reply-to.
type Sender struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"-"`
	Name        string    `json:"name"`
	Email       string    `json:"email"`
	ReplyTo     []string  `json:"reply_to"`
	CreatedAt   time.Time `json:"created_at"`
}

// Address is the sender as a mail address.
func (s Sender) Address() mail.Address { return mail.Address{Name: s.Name, Address: s.Email} }

// Errors of the identity stores.
var (
	ErrDomainNotFound error = fail.NotFound("domain")
	ErrDomainExists         = errors.New("domain already added")
	ErrDomainTaken          = errors.New("domain belongs to another workspace")
	ErrSenderNotFound error = fail.NotFound("sender")
)

// DomainOf returns the lowercased domain part of an address.
func DomainOf(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(address[at+1:])
}

// ErrInvalidDomain is returned for a name that is not a plausible domain.
var ErrInvalidDomain = errors.New("invalid domain name")

// NormalizeDomain is the one spelling of a domain Sesame stores and SES
// sees: trimmed, lower-cased, without a trailing dot, and a plausible DNS
// name. SES treats "Example.com." and "example.com" as one identity, and
// so must every check of who owns a domain.
func NormalizeDomain(domain string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	labels := strings.Split(d, ".")
	if len(d) > 253 || len(labels) < 2 {
		return "", fmt.Errorf("%w: %q", ErrInvalidDomain, domain)
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", fmt.Errorf("%w: %q", ErrInvalidDomain, domain)
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", fmt.Errorf("%w: %q", ErrInvalidDomain, domain)
			}
		}
	}
	return d, nil
}

// DomainStore lists a workspace's domains newest first.
type DomainStore interface {
	ListDomains(ctx context.Context, workspaceID, after string, limit int) (domains []Domain, next string, hasMore bool, err error)
}
