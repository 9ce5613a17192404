// Package suppression is a workspace's do-not-send list: the addresses no
// email goes to, whoever sends it (send, batch, a held email's release,
// campaigns, automations; live and test keys alike), each with why it is
// there and which email caused it. The status pipeline adds hard bounces
// and complaints, the unsubscribe link adds unsubscribed addresses without
// a contact, and the API and the owner add and remove entries.
package suppression

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Reason is why an address is on the list.
type Reason string

// The reasons.
const (
	Bounced      Reason = "bounced"      // a hard bounce
	Complained   Reason = "complained"   // the recipient marked an email as spam
	Unsubscribed Reason = "unsubscribed" // the recipient unsubscribed and has no contact
	Manual       Reason = "manual"       // added by the API or the owner without another reason
)

// Reasons lists every reason, in the order the documents give them.
var Reasons = []Reason{Bounced, Complained, Unsubscribed, Manual}

// Valid reports whether r is one of Reasons.
func (r Reason) Valid() bool {
	for _, v := range Reasons {
		if r == v {
			return true
		}
	}
	return false
}

// reasonList is Reasons as a sentence, for error messages.
func reasonList() string {
	names := make([]string, len(Reasons))
	for i, r := range Reasons {
		names[i] = string(r)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ErrBadReason is why a reason is refused.
var ErrBadReason = fmt.Errorf("reason must be one of %s", reasonList())

// ParseReason reads a reason given by a client; "" is Manual.
func ParseReason(s string) (Reason, error) {
	if s == "" {
		return Manual, nil
	}
	if r := Reason(s); r.Valid() {
		return r, nil
	}
	return "", ErrBadReason
}

// StoredReason reads a reason as stored. Entries written before the list
// had fixed reasons hold free text: the pipeline's "hard bounce (…)" and
// "complaint", and whatever the owner typed, which is Manual.
func StoredReason(s string) Reason {
	switch r := Reason(s); {
	case r.Valid():
		return r
	case strings.HasPrefix(s, "hard bounce"):
		return Bounced
	case s == "complaint":
		return Complained
	default:
		return Manual
	}
}

// Suppression is one address of the list. Email is the key form of the
// address (Key); EmailID names the email that caused it, "" when none did.
type Suppression struct {
	Email     string
	Reason    Reason
	EmailID   string
	CreatedAt time.Time
}

// Key is the form an address is stored and looked up in: trimmed and
// lowercased, so that Ann@Example.org and ann@example.org are one entry,
// and a send to either finds it.
func Key(address string) string { return strings.ToLower(strings.TrimSpace(address)) }

// ParseEmail reads an address given to the list with Sesame's one reading
// of an address (compose.ParseAddress; a display name is dropped) and
// returns its Key.
func ParseEmail(s string) (string, error) {
	a, err := compose.ParseAddress(s)
	if err != nil {
		return "", err
	}
	return Key(a.Address), nil
}

// MaxBatch is how many addresses one request adds.
const MaxBatch = 1000

// Filter narrows a listing: an exact address (its Key) and a reason; ""
// matches every one.
type Filter struct {
	Email  string
	Reason Reason
}

// Matches reports whether s passes f.
func (f Filter) Matches(s Suppression) bool {
	return (f.Email == "" || f.Email == s.Email) && (f.Reason == "" || f.Reason == s.Reason)
}

// ErrNotFound is returned for an address that is not on the list.
var ErrNotFound error = fail.Errorf(fail.KindNotFound, "", "", "address not on the do-not-send list")

// Store keeps the workspace's list.
type Store interface {
	// PutSuppression adds s unless its address is on the list already; it
	// returns the entry as stored (the earlier one, unchanged, when there
	// was one) and whether it was added now. A zero CreatedAt is now.
	PutSuppression(ctx context.Context, workspaceID string, s Suppression) (Suppression, bool, error)
	// DeleteSuppression removes the entry of an address (its Key) and
	// returns it; ErrNotFound when there is none.
	DeleteSuppression(ctx context.Context, workspaceID, email string) (Suppression, error)
	// ListSuppressions returns the entries that pass f, newest first,
	// after position after ("" for the first page).
	ListSuppressions(ctx context.Context, workspaceID string, f Filter, after string, limit int) ([]Suppression, string, bool, error)
}
