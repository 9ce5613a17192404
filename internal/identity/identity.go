// Package identity is what a workspace sends from: its domains, verified
// with SES (Easy DKIM), and its senders, addresses on those domains.
package identity

import (
	"errors"
	"net/mail"
	"strings"
	"time"
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
	ErrDomainNotFound = errors.New("domain not found")
	ErrDomainExists   = errors.New("domain already added")
	ErrDomainTaken    = errors.New("domain belongs to another workspace")
	ErrSenderNotFound = errors.New("sender not found")
)

// DomainOf returns the lowercased domain part of an address.
func DomainOf(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(address[at+1:])
}
