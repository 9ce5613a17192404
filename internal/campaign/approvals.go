package campaign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// ApprovalStore keeps a workspace's campaigns: the reads and changes of
// the owner's approvals.
type ApprovalStore interface {
	Transitions
	// GetCampaign reads a campaign with its html.
	GetCampaign(ctx context.Context, workspaceID, id string) (Campaign, error)
	ListCampaigns(ctx context.Context, workspaceID string, status Status, after string, limit int) ([]Campaign, string, bool, error)
	ReadChunk(ctx context.Context, workspaceID, campaignID string, n int) ([]string, error)
	ApproveCampaign(ctx context.Context, workspaceID, id, contentHash, by string, at time.Time, scheduledAt *time.Time) (Campaign, error)
	EditCampaign(ctx context.Context, workspaceID, id, subject, html, contentHash string) (Campaign, error)
}

// ContactReader reads the contacts of a campaign's sample.
type ContactReader interface {
	GetContact(ctx context.Context, workspaceID, id string) (contact.Contact, error)
}

// Approver names who approves: the console's AWS principal (STS
// GetCallerIdentity), later the dashboard's signed-in owner.
type Approver interface {
	Identity(ctx context.Context) (string, error)
}

// Approvals are the owner's side of bulk campaigns: the queue of drafts,
// what the approver sees, approve (now or at a time), edit, discard, and
// resume of a paused  An API key never reaches them.
type Approvals struct {
	Store    ApprovalStore
	Contacts ContactReader
	Approver Approver
	// Starter starts an approved campaign's send (the engine).
	Starter Starter
	// Check is the deliverability check show runs on the content now.
	Check Checker
	// Workspaces reads the campaign's workspace: its emails' footer needs
	// a postal address, so approving without one is refused.
	Workspaces workspace.Reader
	// PublicURL is the stack's public URL, which a preview's stand-in
	// unsubscribe link starts with (listmail.PreviewLinks).
	PublicURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ErrNotApprovable refuses to approve, edit or resume a campaign whose
// status does not allow it (a discarded or cancelled one, say).
var ErrNotApprovable = fail.Errorf(fail.KindConflict, "", "", "not possible in the campaign's status")

// ErrNoPostalAddress refuses to approve a campaign of a workspace without
// the postal address its emails' footer shows (CAN-SPAM asks for one).
var ErrNoPostalAddress = fail.Errorf(fail.KindConflict, "", "", "the workspace has no postal address for the campaign footer; set one with `sesame workspace set WS --postal-address \"…\"`, then approve again")

func (a *Approvals) now() time.Time {
	if a.Now != nil {
		return a.Now().UTC()
	}
	return time.Now().UTC()
}

// approvalPage is how many campaigns one read of the queue takes.
const approvalPage = 100

// List returns the campaigns the owner can still act on before they
// send: pending approval, then scheduled, newest first in each. One pass
// over the workspace's campaigns: a status filter is billed on every item
// read anyway, so a Query per status would read them all once per status.
func (a *Approvals) List(ctx context.Context, workspaceID string) ([]Campaign, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	byStatus := map[Status][]Campaign{}
	after := ""
	for {
		page, next, more, err := a.Store.ListCampaigns(ctx, workspaceID, "", after, approvalPage)
		if err != nil {
			return nil, err
		}
		for _, c := range page {
			byStatus[c.Status] = append(byStatus[c.Status], c)
		}
		if !more {
			break
		}
		after = next
	}
	var out []Campaign
	for _, st := range Editable {
		out = append(out, byStatus[st]...)
	}
	return out, nil
}

// Shown is a campaign as the approver sees it: its content, a sample of
// its frozen recipients, the deliverability verdict of the content now
// and the text a plain-text reader gets.
type Shown struct {
	Campaign
	Sample []contact.Contact
	// Verdict is nil when the check is absent or failed.
	Verdict Verdict
	Text    string
}

// Show reads a campaign with up to sample of its frozen recipients (a
// contact deleted since the draft is left out of the sample).
func (a *Approvals) Show(ctx context.Context, workspaceID, id string, sample int) (Shown, error) {
	if sample < 0 {
		return Shown{}, fail.Invalid("sample", "sample must be 0 or more")
	}
	c, err := a.get(ctx, workspaceID, id)
	if err != nil {
		return Shown{}, err
	}
	s := Shown{Campaign: c, Text: compose.HTMLToText(c.HTML)}
	if a.Check != nil {
		// The check reads the workspace's brands and postal address.
		ws, err := a.Workspaces.GetWorkspace(ctx, workspaceID)
		if err == nil {
			s.Verdict, err = a.Check(c.Subject, c.HTML, c.Sender, ws)
		}
		if err != nil {
			s.Verdict = nil // shown as unavailable; the content is still shown
		}
	}
	if s.Sample, err = a.sample(ctx, workspaceID, c, sample); err != nil {
		return Shown{}, err
	}
	return s, nil
}

// Approved is the outcome of an approval: the campaign, and whether it
// was approved before (approving twice changes nothing).
type Approved struct {
	Campaign
	Already bool
}

// Approve approves a pending campaign's current content, recording who
// and when, and starts it now, or at at when that is in the future (it
// is then scheduled). Approving a campaign already approved (scheduled,
// sending, paused, sent) changes nothing, except that a scheduled one's
// start is recorded again (its first recording may have failed; doing it
// twice is harmless); a discarded or cancelled one is refused. No
// callback is sent.
func (a *Approvals) Approve(ctx context.Context, workspaceID, id string, at *time.Time) (Approved, error) {
	c, err := a.get(ctx, workspaceID, id)
	if err != nil {
		return Approved{}, err
	}
	switch c.Status {
	case StatusDiscarded, StatusCancelled:
		return Approved{}, fail.Wrap(ErrNotApprovable, "campaign %s is %s", c.ID, c.Status)
	case StatusPendingApproval:
	case StatusScheduled:
		if err := a.Starter.Schedule(ctx, c); err != nil {
			return Approved{Campaign: c, Already: true}, startNotRecorded(c, err)
		}
		return Approved{Campaign: c, Already: true}, nil
	default:
		return Approved{Campaign: c, Already: true}, nil
	}
	ws, err := a.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return Approved{}, err
	}
	if ws.PostalAddress == "" {
		return Approved{}, ErrNoPostalAddress
	}
	now := a.now()
	if at != nil && !at.After(now) {
		at = nil // a time already past starts now
	}
	by, err := a.Approver.Identity(ctx)
	if err != nil {
		return Approved{}, fmt.Errorf("who approves: %w", err)
	}
	c, err = a.Store.ApproveCampaign(ctx, workspaceID, c.ID, c.ContentHash, by, now, at)
	if errors.Is(err, ErrConflict) {
		// Edited, discarded or approved meanwhile: the owner looks again.
		return Approved{}, fail.Wrap(ErrNotApprovable, "campaign %s changed while it was being approved (now %s); show it again", c.ID, c.Status)
	}
	if err != nil {
		return Approved{}, err
	}
	if at != nil {
		err = a.Starter.Schedule(ctx, c)
	} else {
		err = a.Starter.Start(ctx, c)
	}
	if err != nil {
		return Approved{Campaign: c}, startNotRecorded(c, err)
	}
	return Approved{Campaign: c}, nil
}

// startNotRecorded is the error of an approved campaign whose start the
// engine did not take, saying what repeats it: approving a scheduled
// campaign again records its start again; resume queues a sending one.
func startNotRecorded(c Campaign, err error) error {
	again := "run `sesame approvals resume " + c.ID + "`"
	if c.Status == StatusScheduled {
		again = "approve it again"
	}
	return fmt.Errorf("campaign %s is approved (%s) but its start was not recorded; %s: %w", c.ID, c.Status, again, err)
}

// Edit is a change of a campaign's content; nil fields stay.
type Edit struct {
	Subject *string
	HTML    *string
}

// Edit changes the content of a campaign that has not started (pending
// approval or scheduled); it returns to pending_approval and any earlier
// approval is void.
func (a *Approvals) Edit(ctx context.Context, workspaceID, id string, e Edit) (Campaign, error) {
	if e.Subject == nil && e.HTML == nil {
		return Campaign{}, workspace.ErrNothingToChange
	}
	c, err := a.get(ctx, workspaceID, id)
	if err != nil {
		return Campaign{}, err
	}
	subject, html := c.Subject, c.HTML
	if e.Subject != nil {
		subject = *e.Subject
	}
	if e.HTML != nil {
		html = *e.HTML
	}
	if err := CheckContent(subject, html); err != nil {
		field := "subject"
		if e, ok := fail.As(err); ok && e.Param == "html" {
			field = "html-file"
		}
		return Campaign{}, fail.Refused(field, errors.New(fail.MessageOf(err)))
	}
	c, err = a.Store.EditCampaign(ctx, workspaceID, c.ID, subject, html, ContentHash(subject, html, c.Sender))
	if errors.Is(err, ErrConflict) {
		return Campaign{}, fail.Wrap(ErrNotApprovable, "campaign %s is %s; only a campaign pending approval or scheduled can be edited", c.ID, c.Status)
	}
	return c, err
}

// Discard throws away a campaign that has not started: it is never sent.
func (a *Approvals) Discard(ctx context.Context, workspaceID, id string) (Campaign, error) {
	return a.transition(ctx, workspaceID, id, Editable, StatusDiscarded)
}

// Cancel stops a campaign: one not yet started is never sent, one sending
// or paused sends nobody more (the sender reads the status before each
// batch).
func (a *Approvals) Cancel(ctx context.Context, workspaceID, id string) (Campaign, error) {
	return a.transition(ctx, workspaceID, id, Cancellable, StatusCancelled)
}

// Campaigns is a page of the workspace's campaigns of every status,
// newest first, after the keyset cursor after ("" is the first page); it
// returns the next page's cursor, "" on the last.
func (a *Approvals) Campaigns(ctx context.Context, workspaceID, after string, limit int) ([]Campaign, string, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, "", err
	}
	page, next, more, err := a.Store.ListCampaigns(ctx, workspaceID, "", after, limit)
	if err != nil || !more {
		next = ""
	}
	return page, next, err
}

// Resume restarts a paused campaign, or fans a sending campaign's
// chunks out again (its start was lost): recipients already sent are
// skipped.
func (a *Approvals) Resume(ctx context.Context, workspaceID, id string) (Campaign, error) {
	c, err := a.transition(ctx, workspaceID, id, []Status{StatusPaused, StatusSending}, StatusSending)
	if err != nil {
		return Campaign{}, err
	}
	return c, a.Starter.Start(ctx, c)
}

// transition moves a campaign from one of from to to, now.
func (a *Approvals) transition(ctx context.Context, workspaceID, id string, from []Status, to Status) (Campaign, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Campaign{}, err
	}
	c, err := a.Store.TransitionCampaign(ctx, workspaceID, normalID(id), from, to, a.now(), "")
	switch {
	case errors.Is(err, ErrNotFound):
		return Campaign{}, notACampaign(id)
	case errors.Is(err, ErrConflict):
		return Campaign{}, fail.Wrap(ErrNotApprovable, "campaign %s is %s; it can be made %s only from %s", c.ID, c.Status, to, statusList(from))
	}
	return c, err
}

func statusList(s []Status) string {
	names := make([]string, 0, len(s))
	for _, st := range s {
		names = append(names, string(st))
	}
	return strings.Join(names, " or ")
}

func (a *Approvals) get(ctx context.Context, workspaceID, id string) (Campaign, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Campaign{}, err
	}
	c, err := a.Store.GetCampaign(ctx, workspaceID, normalID(id))
	if errors.Is(err, ErrNotFound) {
		return Campaign{}, notACampaign(id)
	}
	return c, err
}

// normalID is a campaign id as the owner may type it: any case, spaces
// around.
func normalID(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

func notACampaign(id string) error {
	return fail.Errorf(fail.KindNotFound, "", "campaign", "campaign %q is not a campaign of the workspace", id)
}
