// Package workspace is the tenant of Sesame: every key, email and setting
// belongs to exactly one workspace.
package workspace

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
)

// Workspace is one tenant and its sending settings. The settings the send
// path needs live on this one record so a send reads them in one request.
type Workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// VerifiedDomains are the workspace's domains verified for sending,
	// kept here by the console when it reads verification from SES.
	VerifiedDomains []string `json:"verified_domains"`
	// DefaultSender is used when a send gives neither sender_id nor from;
	// a copy of the sender record, so a send reads it with the workspace.
	DefaultSender *identity.Sender `json:"default_sender,omitempty"`
	// DefaultTracking is the open-tracking mode of sends that give none;
	// empty means full.
	DefaultTracking string `json:"default_tracking,omitempty"`
	// TrackingOffProvisioned allows tracking "off"; until then it is 503.
	TrackingOffProvisioned bool `json:"tracking_off_provisioned"`
	// MonthlyAllowance caps live sends per calendar month (UTC); 0 is no cap.
	MonthlyAllowance int `json:"monthly_allowance"`
	// Brands are the names the workspace may mention without its email
	// being held as a possible impersonation (its name is always one).
	Brands []string `json:"brands"`
	// PostalAddress is the sender's physical postal address, shown in the
	// footer of every campaign and automation email (CAN-SPAM requires
	// one); empty until the owner sets it.
	PostalAddress string `json:"postal_address"`
	// BulkApproved lets the workspace draft bulk campaigns (POST
	// /send/bulk); off for a new workspace, set by the owner.
	BulkApproved bool `json:"bulk_approved"`
}

// OwnBrands are the names the workspace may mention without its email
// being held as a possible impersonation: its name, its brands and its
// verified domains (a domain owns only the brand that is its registrable
// name: the review's ownsBrand).
func (w Workspace) OwnBrands() []string {
	return append(append([]string{w.Name}, w.Brands...), w.VerifiedDomains...)
}

// ErrNotFound is returned for a workspace that does not exist.
var ErrNotFound error = fail.NotFound("workspace")

// Settings is a change to a workspace's settings; nil fields stay as they are.
type Settings struct {
	DefaultTracking        *string
	TrackingOffProvisioned *bool
	MonthlyAllowance       *int
	Brands                 *[]string
	// PostalAddress "" clears it.
	PostalAddress *string
	BulkApproved  *bool
}

// MaxPostalAddress is the longest postal address, in characters: one
// footer line.
const MaxPostalAddress = 300

// CheckPostalAddress accepts a postal address of at most
// MaxPostalAddress characters on one line: no control characters (a line
// break or tab included) and no line or paragraph separators, which would
// break the footer it is shown in. Empty is accepted: it clears the
// setting.
func CheckPostalAddress(s string) error {
	if utf8.RuneCountInString(s) > MaxPostalAddress {
		return fmt.Errorf("is %d characters, at most %d", utf8.RuneCountInString(s), MaxPostalAddress)
	}
	if !utf8.ValidString(s) {
		return errors.New("is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("contains the control character %U; give the address on one line, parts separated by commas", r)
		}
	}
	if s != strings.TrimSpace(s) {
		return errors.New("starts or ends with white space")
	}
	return nil
}
