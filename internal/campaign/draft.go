package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/mergetag"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// MaxHTMLBytes is the largest html of a campaign: it is stored on the
// campaign's record, which DynamoDB caps at 400 KB with everything else.
const MaxHTMLBytes = 256 << 10

// DraftRequest is the body of POST /api/v1/send/bulk; nil is an absent
// field.
type DraftRequest struct {
	SegmentID *string `json:"segment_id"`
	Subject   *string `json:"subject"`
	HTML      *string `json:"html"`
}

// Validate checks the fields, in the order of the spec's table, without
// I/O; it lowercases segment_id.
func (r *DraftRequest) Validate() error {
	switch {
	case r.SegmentID == nil:
		return fail.Missing("segment_id")
	case r.Subject == nil:
		return fail.Missing("subject")
	case r.HTML == nil:
		return fail.Missing("html")
	}
	id, err := ident.Parse(*r.SegmentID)
	if err != nil || len(*r.SegmentID) != 36 {
		return fail.Invalid("segment_id", "segment_id must be a segment's id, a UUID")
	}
	*r.SegmentID = id.String()
	return CheckContent(*r.Subject, *r.HTML)
}

// CheckContent refuses a campaign's subject or html: the subject as /send
// reads it, a blank html, or one over MaxHTMLBytes, either with a merge
// tag the language refuses (mergetag.Parse, contact variables only), or
// a subject that renders blank for a recipient lacking its values. A draft and an edit read content by this one rule.
func CheckContent(subject, html string) error {
	if strings.TrimSpace(subject) == "" {
		return fail.Invalid("subject", "subject must not be blank")
	}
	if err := email.CheckSubject(subject); err != nil {
		return fail.Invalid("subject", "%s", err)
	}
	tags, err := mergetag.Parse(subject, mergetag.Contact)
	if err != nil {
		return fail.Invalid("subject", "subject: %s", err)
	}
	if strings.TrimSpace(tags.Subject(mergetag.Vars{Email: "@"})) == "" {
		return fail.Invalid("subject", "subject would be blank for a recipient without a name or properties: give its tags a fallback that is not empty, such as {{ contact.first_name | \"Hello\" }}")
	}
	if strings.TrimSpace(html) == "" {
		return fail.Invalid("html", "html must not be blank")
	}
	if len(html) > MaxHTMLBytes {
		return fail.Invalid("html", "html is %d bytes; a campaign's html takes at most %d (256 KB)", len(html), MaxHTMLBytes)
	}
	if _, err := mergetag.Parse(html, mergetag.Contact); err != nil {
		return fail.Invalid("html", "html: %s", err)
	}
	return nil
}

// DraftResult is the spec's Bulk draft result. Deliverability is null
// when the check failed: a failing check never blocks a draft.
type DraftResult struct {
	Status         Status  `json:"status"`
	ApprovalID     string  `json:"approval_id"`
	RecipientCount int     `json:"recipient_count"`
	Deliverability Verdict `json:"deliverability"`
}

// DraftStore stores drafts with their frozen recipients.
type DraftStore interface {
	// CreateCampaign stores the campaign and its recipients; with a
	// claim, the Idempotency-Key in the same transaction, failing with
	// sending.ErrIdempotencyTaken and the record that holds it.
	CreateCampaign(ctx context.Context, c Campaign, recipients []string, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error)
	// GetIdempotency reads a key's record; nil when unused.
	GetIdempotency(ctx context.Context, workspaceID, key string) (*sending.IdempotencyRecord, error)
}

// WorkspaceReader reads the drafting workspace.
type WorkspaceReader interface {
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
}

// SegmentReader reads the segment a draft names.
type SegmentReader interface {
	GetSegment(ctx context.Context, workspaceID, id string) (segment.Segment, error)
}

// Verdict is the deliverability check's report as JSON, shown to the
// approver and answered to the draft; nil is null. The check lives
// outside the domain packages (its public suffix list links net/http).
type Verdict = json.RawMessage

// Checker is the deliverability check of a campaign's content, read as
// bulk mail whose footer and List-Unsubscribe Sesame adds, from the
// workspace ws (its brands and postal address).
type Checker func(subject, html string, sender identity.Sender, ws workspace.Workspace) (Verdict, error)

// Drafts drafts bulk campaigns: it freezes a segment's recipients and
// holds the campaign for the owner's approval. Nothing is queued or sent.
type Drafts struct {
	Store      DraftStore
	Workspaces WorkspaceReader
	Segments   SegmentReader
	Resolver   *segment.Resolver
	// Check is the deliverability check; nil answers null.
	Check  Checker
	Logger *slog.Logger
	// Senders reads the sender a suggestion names (Suggest).
	Senders SenderReader
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Draft drafts a campaign for principal p from a validated request.
// idemKey and reqHash are empty without an Idempotency-Key; with one, a
// repeated request answers as the first did and drafts nothing more.
func (d *Drafts) Draft(ctx context.Context, p apikey.Principal, req DraftRequest, idemKey, reqHash string) (DraftResult, error) {
	return d.draft(ctx, p, req, idemKey, reqHash, "", nil)
}

// draft is Draft from the workspace's sender senderID ("" for its
// default), marked as suggested by by (nil for a plain draft).
func (d *Drafts) draft(ctx context.Context, p apikey.Principal, req DraftRequest, idemKey, reqHash, senderID string, by *Suggestion) (DraftResult, error) {
	now := time.Now().UTC()
	if d.Now != nil {
		now = d.Now().UTC()
	}
	if idemKey != "" {
		idemKey = string(p.Environment) + ":" + idemKey // as /send scopes it
		rec, err := d.Store.GetIdempotency(ctx, p.WorkspaceID, idemKey)
		if err != nil {
			return DraftResult{}, err
		}
		if rec != nil {
			return replay(*rec, reqHash, now)
		}
	}
	ws, err := d.Workspaces.GetWorkspace(ctx, p.WorkspaceID)
	if err != nil {
		return DraftResult{}, fmt.Errorf("read the workspace: %w", err)
	}
	if !ws.BulkApproved {
		return DraftResult{}, fail.Errorf(fail.KindForbidden, fail.AccountNotApproved, "",
			"this workspace is not approved for bulk sending yet; its owner can ask for it (the operator sets it with `sesame workspace set --bulk-approved`)")
	}
	sender, err := d.sender(ctx, ws, senderID)
	if err != nil {
		return DraftResult{}, err
	}
	seg, err := d.Segments.GetSegment(ctx, p.WorkspaceID, *req.SegmentID)
	if errors.Is(err, segment.ErrNotFound) {
		return DraftResult{}, fail.Errorf(fail.KindNotFound, "", "segment_id", "no segment with this id in the workspace")
	}
	if err != nil {
		return DraftResult{}, err
	}
	var recipients []string
	err = d.Resolver.Resolve(ctx, p.WorkspaceID, seg.Filter, now, func(c contact.Contact) error {
		recipients = append(recipients, c.ID)
		return nil
	})
	if err != nil {
		return DraftResult{}, err
	}
	if len(recipients) == 0 {
		return DraftResult{}, fail.Invalid("segment_id", "the segment resolves to no subscribed recipient off the do-not-send list; nothing to draft")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return DraftResult{}, err
	}
	c := Campaign{
		ID: id.String(), WorkspaceID: p.WorkspaceID, Subject: *req.Subject, HTML: *req.HTML, Sender: sender,
		SegmentID: seg.ID, Status: StatusPendingApproval, RecipientCount: len(recipients),
		ContentHash: ContentHash(*req.Subject, *req.HTML, sender), CreatedAt: now, SuggestedBy: by,
	}
	out := DraftResult{Status: StatusPendingApproval, ApprovalID: c.ID, RecipientCount: c.RecipientCount, Deliverability: d.verdict(ctx, c, ws)}
	var claim *sending.IdempotencyRecord
	if idemKey != "" {
		// The answer is whole before anything is written: the record is
		// final from the start.
		if claim, err = sending.NewIdempotencyRecord(idemKey, reqHash, 200, out, false, now); err != nil {
			return DraftResult{}, err
		}
	}
	held, err := d.Store.CreateCampaign(ctx, c, recipients, claim)
	if errors.Is(err, sending.ErrIdempotencyTaken) {
		return replay(*held, reqHash, now) // a concurrent twin won
	}
	if err != nil {
		return DraftResult{}, err
	}
	return out, nil
}

// verdict is the deliverability check of c's content, or nil when there
// is no check or it failed: a failing check never blocks a draft.
func (d *Drafts) verdict(ctx context.Context, c Campaign, ws workspace.Workspace) (v Verdict) {
	if d.Check == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			v = nil
			d.logger().ErrorContext(ctx, "deliverability check failed; the draft has no verdict", slog.String("campaign_id", c.ID), slog.Any("panic", r))
		}
	}()
	v, err := d.Check(c.Subject, c.HTML, c.Sender, ws)
	if err != nil {
		d.logger().ErrorContext(ctx, "deliverability check failed; the draft has no verdict", slog.String("campaign_id", c.ID), slog.Any("err", err))
		return nil
	}
	return v
}

func (d *Drafts) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

// replay answers with an Idempotency-Key's stored draft result, by /send's
// rule.
func replay(rec sending.IdempotencyRecord, reqHash string, now time.Time) (DraftResult, error) {
	if err := sending.CheckReplay(rec, reqHash, now); err != nil {
		return DraftResult{}, err
	}
	var out DraftResult
	if err := json.Unmarshal(rec.Body, &out); err != nil {
		return DraftResult{}, fmt.Errorf("stored idempotent draft result: %w", err)
	}
	return out, nil
}
