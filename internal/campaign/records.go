package campaign

import (
	"errors"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
)

// The records of a campaign's sending, which the store keeps for the
// sender (campaign/engine): they live here so that storage links the
// entity, not its runner.

// Recipient is a frozen contact as it is at send time, with what its
// merge tags read.
type Recipient struct {
	ContactID string
	// Email is "" for a contact deleted since the draft.
	Email      string
	FirstName  *string
	LastName   *string
	Properties map[string]contact.Property
	Subscribed bool
	Suppressed bool
}

// Contact is r as the contact its email is rendered for.
func (r Recipient) Contact() contact.Contact {
	return contact.Contact{ID: r.ContactID, Email: r.Email, FirstName: r.FirstName, LastName: r.LastName,
		Properties: r.Properties, Subscribed: r.Subscribed}
}

// Progress is which recipients of a chunk are done (sent, found claimed
// or skipped) and counted on the campaign: bit i is the chunk's i-th id.
// Version counts its commits, so two senders of one chunk never count a
// recipient twice.
type Progress struct {
	Version int
	Done    []byte
}

// IsDone reports whether recipient i is done.
func (p Progress) IsDone(i int) bool { return i/8 < len(p.Done) && p.Done[i/8]&(1<<(i%8)) != 0 }

// Mark sets recipient i done in p's bitmap.
func (p *Progress) Mark(i int) {
	for len(p.Done) <= i/8 {
		p.Done = append(p.Done, 0)
	}
	p.Done[i/8] |= 1 << (i % 8)
}

// ErrProgressMoved is a progress commit's answer when another sender
// committed the chunk since it was read.
var ErrProgressMoved = errors.New("campaign chunk progress moved")

// DueStart is a scheduled campaign's start, kept until the tick starts it.
type DueStart struct {
	At          time.Time
	WorkspaceID string
	CampaignID  string
}

// Tally is what a workspace's recent campaign and automation emails did:
// how many were sent, and how many of those bounced or drew a complaint.
type Tally struct {
	Sent, Bounced, Complained int
}
