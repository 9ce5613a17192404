package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Links builds a recipient's unsubscribe link (unsubscribe.Links).
type Links = listmail.Links

// Tuning of the sender.
const (
	// groupSize recipients are read, sent and counted together: one
	// status re-read, breaker check and progress commit per group.
	groupSize = 50
	// Workers send a group's emails at once, each in a slot of the pace.
	Workers = 8
	// sendTries bounds the tries of one email against SES throttling or
	// a fault; past them its claim is released and the chunk retried.
	sendTries = 5
	// chunkBudget is the time one group may take: with less left before
	// the invocation's deadline, the chunk continues in a new message.
	chunkBudget = 20 * time.Second
)

// Sender consumes the sends queue: one message is one chunk of a
// campaign's frozen recipients.
type Sender struct {
	Campaigns  Campaigns
	Store      Store
	Workspaces Workspaces
	Reputation ReputationStore
	// Pacer holds each workspace's campaigns to their fair share of the
	// campaign slots.
	Pacer      *capacity.Pacer
	Transport  sending.Transport
	ConfigSets sending.ConfigSets
	Links      Links
	// Build writes a message's raw MIME form (compose/raw.Build), given
	// so that the functions linking this package through the table's
	// repositories do not link the MIME writer.
	Build    func(compose.Message) ([]byte, error)
	Failures sending.FailureRecorder
	// Queue takes a chunk's continuation when an invocation runs short
	// of time.
	Queue Enqueuer
	// Backoff brings a chunk that met a fault back within seconds.
	Backoff batch.Backoff
	Breaker Thresholds
	Logger  *slog.Logger
	Now     func() time.Time
	// Sleep waits between tries of a throttled send; time-based when nil.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Sender) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

func (s *Sender) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Handle consumes a batch of the sends queue. A chunk that met a fault is
// delivered again: what it sent and counted is recorded, so the next
// delivery carries on where it stopped.
func (s *Sender) Handle(ctx context.Context, msgs []batch.Message) (retry []string) {
	for _, msg := range msgs {
		var m ChunkMessage
		if err := json.Unmarshal([]byte(msg.Body), &m); err != nil || m.WorkspaceID == "" || m.CampaignID == "" || m.Chunk < 0 {
			s.logger().ErrorContext(ctx, "malformed sends message dropped", slog.String("message_id", msg.ID))
			continue
		}
		if err := s.SendChunk(ctx, m); err != nil {
			s.logger().ErrorContext(ctx, "campaign chunk failed; will retry", slog.String("campaign_id", m.CampaignID),
				slog.Int("chunk", m.Chunk), slog.Any("err", err))
			if err := s.Backoff.Retry(ctx, msg); err != nil {
				s.logger().ErrorContext(ctx, "campaign chunk retry delay not set", slog.Any("err", err))
			}
			retry = append(retry, msg.ID)
		}
	}
	return retry
}

// errRetry marks a chunk left with recipients to send again later.
var errRetry = errors.New("some recipients are to be sent again")

// SendChunk sends one chunk of a sending campaign, group by group.
func (s *Sender) SendChunk(ctx context.Context, m ChunkMessage) error {
	c, err := s.Campaigns.GetCampaign(ctx, m.WorkspaceID, m.CampaignID)
	if errors.Is(err, campaign.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.Status != campaign.StatusSending || c.StartedAt == nil {
		return nil // cancelled, paused (resume sends it again) or done
	}
	ids, err := s.Campaigns.ReadChunk(ctx, m.WorkspaceID, m.CampaignID, m.Chunk)
	if err != nil {
		return err
	}
	prog, err := s.Store.Progress(ctx, m.WorkspaceID, m.CampaignID, m.Chunk)
	if err != nil {
		return err
	}
	ws, err := s.Workspaces.GetWorkspace(ctx, m.WorkspaceID)
	if err != nil {
		return err
	}
	if ws.PostalAddress == "" {
		return s.pause(ctx, c, "the workspace has no postal address for the footer: set one with `sesame workspace set --postal-address`, then resume")
	}
	job := &chunkJob{Sender: s, msg: m, ids: ids, prog: prog, ws: ws, gate: &statusGate{read: func(ctx context.Context) (campaign.Status, error) {
		c, err := s.Campaigns.GetCampaignRecord(ctx, m.WorkspaceID, m.CampaignID)
		return c.Status, err
	}}}
	for start := 0; start < len(ids); start += groupSize {
		group := job.pending(start, min(start+groupSize, len(ids)))
		if len(group) == 0 {
			continue
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < chunkBudget {
			// Carry on in a new message now rather than after this one's
			// visibility timeout.
			return s.continueLater(ctx, m)
		}
		if job.sentGroups > 0 {
			// c may have been cancelled or paused since this job's last
			// group; its content cannot have changed (a sending campaign
			// is not editable), so c is kept.
			if sending, err := job.gate.sending(ctx); err != nil || !sending {
				return err
			}
		}
		stop, err := job.runGroup(ctx, c, group)
		if err != nil || stop {
			return err
		}
	}
	return s.complete(ctx, m)
}

// continueLater puts the chunk on the queue again for a fresh invocation.
func (s *Sender) continueLater(ctx context.Context, m ChunkMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.Queue.EnqueueAll(ctx, [][]byte{b})
}

// pause stops a sending campaign with reason; a campaign that left
// sending meanwhile (cancelled, done) stays as it is.
func (s *Sender) pause(ctx context.Context, c campaign.Campaign, reason string) error {
	_, err := s.Campaigns.TransitionCampaign(ctx, c.WorkspaceID, c.ID, []campaign.Status{campaign.StatusSending}, campaign.StatusPaused, s.now(), reason)
	if err == nil {
		s.logger().WarnContext(ctx, "campaign paused", slog.String("campaign_id", c.ID), slog.String("reason", reason))
		return nil
	}
	return unlessMoved(err)
}

// unlessMoved is err, unless another writer moved the campaign first
// (campaign.ErrConflict: cancelled, paused or done meanwhile).
func unlessMoved(err error) error {
	if errors.Is(err, campaign.ErrConflict) {
		return nil
	}
	return err
}

// complete moves the campaign to sent once every recipient is counted.
func (s *Sender) complete(ctx context.Context, m ChunkMessage) error {
	c, err := s.Campaigns.GetCampaignRecord(ctx, m.WorkspaceID, m.CampaignID)
	if err != nil {
		return err
	}
	if c.SentCount+c.SkippedCount < c.RecipientCount || (c.Status != campaign.StatusSending && c.Status != campaign.StatusPaused) {
		return nil
	}
	_, err = s.Campaigns.TransitionCampaign(ctx, c.WorkspaceID, c.ID,
		[]campaign.Status{campaign.StatusSending, campaign.StatusPaused}, campaign.StatusSent, s.now(), "")
	if err != nil {
		return unlessMoved(err)
	}
	return nil
}

// outcome is what became of one recipient in this delivery.
type outcome uint8

const (
	pendingAgain outcome = iota // not done: sent again by a later delivery
	wentOut                     // sent now, or claimed by an earlier delivery
	skipped                     // unsubscribed, suppressed, deleted or refused by SES
)

// chunkJob is one delivery of one chunk.
type chunkJob struct {
	*Sender
	msg  ChunkMessage
	ids  []string
	prog campaign.Progress
	ws   workspace.Workspace
	// sentGroups is how many groups this job sent and committed.
	sentGroups int
	// sent is how many emails SES took in this job.
	sent atomic.Int64
	// gate is asked before every SES call; halted is set when it said the
	// campaign stopped sending (cancelled, paused or done).
	gate   *statusGate
	halted atomic.Bool
}

// pending lists the recipients of ids[from:to] not yet done.
func (j *chunkJob) pending(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		if !j.prog.IsDone(i) {
			out = append(out, i)
		}
	}
	return out
}

// runGroup sends one group and commits it; stop ends the chunk (paused).
func (j *chunkJob) runGroup(ctx context.Context, c campaign.Campaign, group []int) (stop bool, err error) {
	now := j.now()
	tally, err := j.Reputation.Tally(ctx, c.WorkspaceID, now.Add(-j.Breaker.Window), now)
	if err != nil {
		return false, err
	}
	if reason, trip := j.Breaker.Trip(tally); trip {
		return true, j.pause(ctx, c, reason)
	}
	allowed := len(group)
	if limit := j.ws.MonthlyAllowance; limit > 0 {
		used, err := j.Store.MonthlyUsage(ctx, c.WorkspaceID, now.Format("2006-01"))
		if err != nil {
			return false, err
		}
		// The status pipeline counts a send later: what this job sent is
		// not in used yet.
		allowed = max(0, min(allowed, limit-used-int(j.sent.Load())))
	}
	ids := make([]string, len(group))
	for k, i := range group {
		ids[k] = j.ids[i]
	}
	recipients, err := j.Store.Recipients(ctx, c.WorkspaceID, ids)
	if err != nil {
		return false, err
	}
	outcomes := make(map[int]outcome, len(group))
	var sendable []int
	capped := false
	for k, i := range group {
		r := recipients[k]
		if r.Email == "" || !r.Subscribed || r.Suppressed {
			outcomes[i] = skipped
			continue
		}
		if len(sendable) == allowed {
			capped = true
			continue
		}
		sendable = append(sendable, k)
	}
	j.sendAll(ctx, c, group, recipients, sendable, outcomes)
	if err := j.commit(ctx, outcomes); err != nil {
		return false, err
	}
	j.sentGroups++
	if j.halted.Load() {
		// What is left is never sent: a resume sends it again.
		return true, nil
	}
	if went := count(outcomes, wentOut); went > 0 {
		if err := j.Reputation.CountSent(ctx, c.WorkspaceID, now, went); err != nil {
			j.logger().WarnContext(ctx, "campaign sends not counted for the breaker", slog.Any("err", err))
		}
	}
	if capped {
		return true, j.pause(ctx, c, fmt.Sprintf("the workspace has used its monthly allowance of %d live emails", j.ws.MonthlyAllowance))
	}
	if count(outcomes, pendingAgain) > 0 {
		return true, errRetry
	}
	return false, nil
}

func count(outcomes map[int]outcome, o outcome) int {
	n := 0
	for _, v := range outcomes {
		if v == o {
			n++
		}
	}
	return n
}

// sendAll sends the sendable recipients (indexes into group) with a few
// workers, each send in a slot of the pace, and records each outcome.
func (j *chunkJob) sendAll(ctx context.Context, c campaign.Campaign, group []int, recipients []campaign.Recipient, sendable []int, outcomes map[int]outcome) {
	var mu sync.Mutex
	work := make(chan int)
	pool := capacity.NewPool(j.Pacer, capacity.Claimant{Class: capacity.Campaign, Workspace: c.WorkspaceID}, len(sendable))
	var wg sync.WaitGroup
	for range min(Workers, len(sendable)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				o := j.sendOne(ctx, c, recipients[k], pool)
				mu.Lock()
				outcomes[group[k]] = o
				mu.Unlock()
			}
		}()
	}
	for _, k := range sendable {
		work <- k
	}
	close(work)
	wg.Wait()
}

// sendOne sends the recipient's email once (listmail.Sender): a claim
// found taken means an earlier delivery has it. Each SES call starts only
// after the gate read the campaign as still sending (before the claim,
// and before each retry).
func (j *chunkJob) sendOne(ctx context.Context, c campaign.Campaign, r campaign.Recipient, pool *capacity.Pool) outcome {
	// The gate is asked before the claim: a claim that a store fault then
	// kept from being released would count the email as sent, unsent.
	if err := pool.Acquire(ctx); err != nil || !j.stillSending(ctx) {
		return pendingAgain
	}
	id := campaign.EmailID(c.ID, r.ContactID, *c.StartedAt)
	msg, err := j.build(c, r, id)
	subject := c.Subject // as drafted, when it does not render
	if err == nil {
		subject = msg.Subject
	}
	e := email.Email{
		ID: id, WorkspaceID: c.WorkspaceID, To: r.Email, Subject: subject,
		Status: email.StatusSent, Type: email.TypeCampaign, Environment: apikey.Live, SentAt: j.now(), TrackingMode: listmail.Tracking(j.ws),
		Source: email.Source{CampaignID: c.ID, ContactID: r.ContactID},
	}
	res := j.mail().Send(ctx, listmail.Mail{
		Email: e, From: c.Sender.Email,
		Message: func() (compose.Message, error) { return msg, err },
		Again: func(ctx context.Context, try int) bool {
			return try < sendTries && j.sleep(ctx, time.Duration(1<<try)*100*time.Millisecond) == nil &&
				pool.Acquire(ctx) == nil && j.stillSending(ctx)
		},
	})
	switch res.Outcome {
	case listmail.Sent:
		j.sent.Add(1)
		return wentOut
	case listmail.ClaimedBefore:
		return wentOut
	case listmail.Refused:
		return skipped
	case listmail.Unclaimed:
		j.logger().ErrorContext(ctx, "campaign email not claimed", slog.String("email_id", e.ID), slog.Any("err", res.Err))
	case listmail.Released:
		// Not built: the stack's unsubscribe links are misconfigured, no
		// email can go until it is fixed (the chunk ends in the
		// dead-letter queue). Not taken: SES throttled or failed.
		j.logger().WarnContext(ctx, "campaign email not sent; will retry", slog.String("email_id", e.ID), slog.Any("err", res.Err))
	}
	return pendingAgain
}

// mail is the list-mail sender over the job's store and SES.
func (j *chunkJob) mail() listmail.Sender {
	return listmail.Sender{Claims: j.Store, Transport: j.Transport, ConfigSets: j.ConfigSets, Build: j.Build, Failures: j.Failures, Logger: j.logger()}
}

// stillSending asks the gate whether an SES call may start; a fault
// reading it leaves the recipient for a later delivery.
func (j *chunkJob) stillSending(ctx context.Context) bool {
	sending, err := j.gate.sending(ctx)
	if err != nil {
		j.logger().WarnContext(ctx, "campaign status not read; the recipient waits", slog.String("campaign_id", j.msg.CampaignID), slog.Any("err", err))
		return false
	}
	if !sending {
		j.halted.Store(true)
	}
	return sending
}

// build renders the recipient's message (campaign.Message): merge tags
// for r, the footer and the one-click unsubscribe headers.
func (j *chunkJob) build(c campaign.Campaign, r campaign.Recipient, emailID string) (compose.Message, error) {
	return campaign.Message(c, j.ws, j.Links, r.Contact(), emailID)
}

// commit marks the group's done recipients and adds their counts to the
// campaign; when another delivery of the chunk committed meanwhile, the
// recipients it counted are left out and the commit tried again.
func (j *chunkJob) commit(ctx context.Context, outcomes map[int]outcome) error {
	for try := 0; ; try++ {
		next := campaign.Progress{Version: j.prog.Version + 1, Done: append([]byte(nil), j.prog.Done...)}
		sent, skip := 0, 0
		for i, o := range outcomes {
			if o == pendingAgain || j.prog.IsDone(i) {
				continue
			}
			next.Mark(i)
			if o == wentOut {
				sent++
			} else {
				skip++
			}
		}
		if sent+skip == 0 {
			return nil
		}
		err := j.Store.CommitProgress(ctx, j.msg.WorkspaceID, j.msg.CampaignID, j.msg.Chunk, j.prog, next, sent, skip)
		if err == nil {
			j.prog = next
			return nil
		}
		if !errors.Is(err, campaign.ErrProgressMoved) || try == 3 {
			return err
		}
		if j.prog, err = j.Store.Progress(ctx, j.msg.WorkspaceID, j.msg.CampaignID, j.msg.Chunk); err != nil {
			return err
		}
	}
}
