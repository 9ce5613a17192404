// Package runner executes automation runs: it consumes the automations
// queue, each message waking one run, and the tick that wakes long waits.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// RunStore reads and moves runs (automationdb.AutomationRuns).
type RunStore interface {
	GetRun(ctx context.Context, workspaceID, automationID, runID string) (automation.Run, error)
	// Steps reads a kept version of an automation's steps.
	Steps(ctx context.Context, workspaceID, automationID string, version int) ([]automation.Step, error)
	// Advance applies a to r unless r moved from the step it read
	// (ErrRunMoved); a run that ends gives up its live-run claim at once.
	Advance(ctx context.Context, r automation.Run, a automation.Advance) error
}

// Audience reads a contact as it is now, and whether its address is on
// the do-not-send list; a tag step changes the contact as any update
// does, within its caps.
type Audience interface {
	GetContact(ctx context.Context, workspaceID, id string) (contact.Contact, error)
	UpdateContact(ctx context.Context, workspaceID, id string, p contact.Patch) (contact.Contact, error)
	Suppressed(ctx context.Context, workspaceID, address string) (bool, error)
}

// Mail is the email store side of a send step (listmaildb.ListSends).
type Mail interface {
	listmail.Claims
	// ClaimedAt is when an email id was claimed; found is false when no
	// claim holds it.
	ClaimedAt(ctx context.Context, workspaceID, id string) (at time.Time, found bool, err error)
	MonthlyUsage(ctx context.Context, workspaceID, month string) (int, error)
}

// ClaimInFlight is how long a send step's claim may belong to a delivery
// still sending: the automations queue's visibility timeout. A younger
// claim's step is retried (its holder may yet release it); an older one
// was sent by a delivery that died before it advanced the run.
const ClaimInFlight = 2 * time.Minute

// ErrStepInFlight is a send step whose email another delivery claimed a
// moment ago: retried, so the step is logged by whoever sent it.
var ErrStepInFlight = errors.New("the step's email is being sent by another delivery; retried")

// Workspaces reads a workspace and its senders.
type Workspaces interface {
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
	GetSender(ctx context.Context, workspaceID, id string) (identity.Sender, error)
}

// Waker puts a wake-up (an automation.WakeMessage) on the automations
// queue after delay (queue.Publisher).
type Waker interface {
	EnqueueAfter(ctx context.Context, m any, delay time.Duration) error
}

// Runner consumes the automations queue: each message wakes one run,
// which executes its due steps until a wait or its end.
type Runner struct {
	Runs       RunStore
	Audience   Audience
	Mail       Mail
	Workspaces Workspaces
	Queue      Waker
	Transport  sending.Transport
	// Pacer holds automation sends to their share of the SES rate; nil
	// sends unpaced.
	Pacer *capacity.Pacer
	// Captures keeps what a test key's run would have sent (nil: the
	// stored email alone).
	Captures   sending.Capturer
	ConfigSets sending.ConfigSets
	Links      listmail.Links
	// Build writes a message's raw MIME form (compose/raw.Build).
	Build    func(compose.Message) ([]byte, error)
	Failures sending.FailureRecorder
	// Backoff brings a wake-up that met a fault back within seconds.
	Backoff batch.Backoff
	Logger  *slog.Logger
	Now     func() time.Time

	// versions caches kept versions: they never change.
	versions sync.Map
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}

// Handle consumes a batch of wake-ups; a run that met a fault is woken
// again by its message's redelivery.
func (r *Runner) Handle(ctx context.Context, msgs []batch.Message) (retry []string) {
	for _, msg := range msgs {
		var m automation.WakeMessage
		if err := json.Unmarshal([]byte(msg.Body), &m); err != nil || m.WorkspaceID == "" || m.AutomationID == "" || m.RunID == "" {
			r.logger().ErrorContext(ctx, "malformed automations message dropped", slog.String("message_id", msg.ID))
			continue
		}
		if err := r.Wake(ctx, m); err != nil {
			r.logger().ErrorContext(ctx, "automation run failed; will retry", slog.String("run_id", m.RunID), slog.Any("err", err))
			if err := r.Backoff.Retry(ctx, msg); err != nil {
				r.logger().ErrorContext(ctx, "automation retry delay not set", slog.Any("err", err))
			}
			retry = append(retry, msg.ID)
		}
	}
	return retry
}

// Wake executes what is due of one run: nothing for a run that ended,
// moved on, or is not due yet (woken again when it is).
func (r *Runner) Wake(ctx context.Context, m automation.WakeMessage) error {
	run, err := r.Runs.GetRun(ctx, m.WorkspaceID, m.AutomationID, m.RunID)
	if errors.Is(err, automation.ErrRunNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if run.Status != automation.RunActive || m.Step != nil && *m.Step != run.Step {
		return nil
	}
	if wait := run.DueAt.Sub(r.now()); wait > 0 {
		if wait <= automation.MaxQueueDelay {
			return r.Queue.EnqueueAfter(ctx, m, wait)
		}
		return nil // its wake-up item brings it back
	}
	steps, err := r.steps(ctx, run)
	if err != nil {
		return err
	}
	for run.Status == automation.RunActive && !run.DueAt.After(r.now()) {
		a, err := r.execute(ctx, run, steps)
		if err != nil {
			return err
		}
		if err := r.Runs.Advance(ctx, run, a); errors.Is(err, automation.ErrRunMoved) {
			return nil // another delivery executed it and carries on
		} else if err != nil {
			return err
		}
		run = applied(run, a, r.now())
	}
	if run.Status == automation.RunActive && !run.DueAt.After(r.now().Add(automation.MaxQueueDelay)) {
		return r.Queue.EnqueueAfter(ctx, m.ForStep(run.Step), run.DueAt.Sub(r.now()))
	}
	return nil
}

// applied is run after a.
func applied(run automation.Run, a automation.Advance, now time.Time) automation.Run {
	run.Step, run.DueAt, run.Status, run.Reason, run.UpdatedAt = a.Step, a.DueAt, a.Status, a.Reason, now
	run.Log = append(run.Log, a.Log)
	if a.Status != automation.RunActive {
		run.EndedAt = &now
	}
	return run
}

// steps reads the version the run executes, once per process.
func (r *Runner) steps(ctx context.Context, run automation.Run) ([]automation.Step, error) {
	k := run.WorkspaceID + "/" + run.AutomationID + "/" + strconv.Itoa(run.Version)
	if v, ok := r.versions.Load(k); ok {
		return v.([]automation.Step), nil
	}
	steps, err := r.Runs.Steps(ctx, run.WorkspaceID, run.AutomationID, run.Version)
	if err != nil {
		return nil, err
	}
	r.versions.Store(k, steps)
	return steps, nil
}

// execute runs the run's due step and says how the run moves.
func (r *Runner) execute(ctx context.Context, run automation.Run, steps []automation.Step) (automation.Advance, error) {
	now := r.now()
	if run.Step >= len(steps) {
		return automation.Advance{Step: run.Step, DueAt: run.DueAt, Status: automation.RunCompleted,
			Log: automation.StepLog{Step: run.Step, At: now, Outcome: "completed"}}, nil
	}
	step := steps[run.Step]
	next := automation.Advance{Step: run.Step + 1, DueAt: now, Status: automation.RunActive, Log: automation.StepLog{Step: run.Step, Type: step.Type, At: now}}
	var err error
	switch step.Type {
	case automation.StepSend:
		err = r.send(ctx, run, step, &next)
	case automation.StepTag:
		err = r.tag(ctx, run, step, &next)
	case automation.StepWait:
		// Logged when the wait starts: what it waits, and until when.
		next.Log.Outcome = "waiting " + step.Duration.String()
		if run.Environment != apikey.Test {
			next.DueAt = now.Add(time.Duration(step.Duration))
			next.Log.Detail = "until " + next.DueAt.UTC().Format(time.RFC3339)
			next.Wake = time.Duration(step.Duration) > automation.MaxQueueDelay
		} else {
			next.Log.Detail = "test mode: the wait took no time"
		}
	default:
		next.Status, next.Reason = automation.RunStopped, fmt.Sprintf("step %d has an unknown type %q", run.Step, step.Type)
	}
	if err != nil {
		return automation.Advance{}, err
	}
	if next.Status == automation.RunActive && next.Step >= len(steps) {
		next.Status = automation.RunCompleted
	}
	return next, nil
}

// stop ends the run at its step with reason.
func stop(a *automation.Advance, outcome, reason string) {
	a.Status, a.Reason, a.Log.Outcome, a.Log.Detail = automation.RunStopped, reason, outcome, reason
	a.Step--
}

// failed ends the run at its send step, whose email could not go, with
// reason.
func failed(a *automation.Advance, reason string) {
	stop(a, "failed", reason)
	a.Status = automation.RunFailed
}

// ReasonContactDeleted is why a run whose contact was deleted stopped.
const ReasonContactDeleted = "the contact was deleted"

// tag adds and removes the contact's tags; a test key's run tags nobody.
func (r *Runner) tag(ctx context.Context, run automation.Run, step automation.Step, a *automation.Advance) error {
	a.Log.Outcome = "tagged"
	if run.Environment == apikey.Test {
		a.Log.Detail = "test mode: nobody tagged"
		return nil
	}
	_, err := r.Audience.UpdateContact(ctx, run.WorkspaceID, run.ContactID, contact.Patch{AddTags: step.Add, RemoveTags: step.Remove})
	switch {
	case errors.Is(err, contact.ErrNotFound):
		stop(a, "stopped", ReasonContactDeleted)
		return nil
	case fail.IsPermanent(err):
		// Refused as the contact's own update refuses it (its tag cap).
		stop(a, "stopped", "the contact's tags were not changed: "+fail.MessageOf(err))
		return nil
	}
	return err
}

// send sends the step's email to the contact as it is now, once: its id
// derives from the run and the step, and is claimed before it goes.
func (r *Runner) send(ctx context.Context, run automation.Run, step automation.Step, a *automation.Advance) error {
	c, err := r.Audience.GetContact(ctx, run.WorkspaceID, run.ContactID)
	if errors.Is(err, contact.ErrNotFound) {
		stop(a, "stopped", ReasonContactDeleted)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.Subscribed {
		stop(a, "stopped", "the contact unsubscribed")
		return nil
	}
	suppressed, err := r.Audience.Suppressed(ctx, run.WorkspaceID, c.Email)
	if err != nil {
		return err
	}
	if suppressed {
		stop(a, "stopped", "the contact's address is on the do-not-send list")
		return nil
	}
	ws, err := r.Workspaces.GetWorkspace(ctx, run.WorkspaceID)
	if err != nil {
		return err
	}
	live := run.Environment != apikey.Test
	if live && ws.MonthlyAllowance > 0 {
		used, err := r.Mail.MonthlyUsage(ctx, run.WorkspaceID, r.now().Format("2006-01"))
		if err != nil {
			return err
		}
		if used >= ws.MonthlyAllowance {
			stop(a, "stopped", fmt.Sprintf("the workspace has used its monthly allowance of %d live emails", ws.MonthlyAllowance))
			return nil
		}
	}
	from, refusal, err := r.sender(ctx, ws, step.SenderID)
	if err != nil {
		return err
	}
	if refusal != "" {
		failed(a, refusal)
		return nil
	}
	subject, body, err := automation.RenderSend(step, run, c)
	if err != nil {
		failed(a, err.Error())
		return nil
	}
	e := email.Email{
		ID: automation.EmailID(run, run.Step), WorkspaceID: run.WorkspaceID, To: c.Email, Subject: subject,
		Status: email.StatusSent, Type: email.TypeAutomation, Environment: run.Environment, SentAt: r.now(), TrackingMode: listmail.Tracking(ws),
		Source: email.Source{AutomationID: run.AutomationID, RunID: run.ID, Step: run.Step, ContactID: c.ID},
	}
	a.Log.EmailID = e.ID
	if live {
		// A slot of the automation share before the claim: an email
		// claimed but not sent for want of one would wait for the retry.
		if err := r.pace(ctx, e.WorkspaceID); err != nil {
			return fmt.Errorf("pace automation email: %w", err)
		}
	}
	res := r.mail().Send(ctx, listmail.Mail{
		Email: e, From: from.Email, Capture: !live,
		Message: func() (compose.Message, error) {
			return automation.Compose(r.Links, ws, from, run, c, subject, body, e.ID)
		},
	})
	switch res.Outcome {
	case listmail.Unclaimed:
		return res.Err
	case listmail.ClaimedBefore:
		at, found, err := r.Mail.ClaimedAt(ctx, e.WorkspaceID, e.ID)
		if err != nil {
			return err
		}
		if !found || r.now().Sub(at) < ClaimInFlight {
			return ErrStepInFlight
		}
		a.Log.Outcome = "sent" // by an earlier delivery of this step
	case listmail.Refused:
		failed(a, res.Reason)
	case listmail.Released:
		return fmt.Errorf("send automation email: %w", res.Err)
	case listmail.Captured:
		a.Log.Outcome, a.Log.Detail = "captured", "test mode: captured, not delivered"
	case listmail.Sent:
		a.Log.Outcome = "sent"
	}
	return nil
}

// mail is the list-mail sender over the run's store and SES.
func (r *Runner) mail() listmail.Sender {
	return listmail.Sender{Claims: r.Mail, Transport: r.Transport, ConfigSets: r.ConfigSets, Build: r.Build,
		Failures: r.Failures, Captures: r.Captures, Logger: r.logger()}
}

// pace waits for a slot of the workspace's automation share.
func (r *Runner) pace(ctx context.Context, workspaceID string) error {
	if r.Pacer == nil {
		return nil
	}
	return r.Pacer.Wait(ctx, capacity.Claimant{Class: capacity.Automation, Workspace: workspaceID})
}

// sender is the step's sender, else the workspace's default, checked as
// POST /send checks its sender (sending.DefaultSender, sending.CheckSender:
// a sender whose domain is no longer verified does not send). refusal says
// why the run stops; err is a fault, retried.
func (r *Runner) sender(ctx context.Context, ws workspace.Workspace, id string) (from identity.Sender, refusal string, err error) {
	if id == "" {
		if ws.DefaultSender == nil {
			return identity.Sender{}, "the workspace has no default sender: set one, or give the send step a sender_id", nil
		}
		s, err := sending.DefaultSender(ws)
		if err != nil {
			return identity.Sender{}, "the default sender cannot send: " + fail.MessageOf(err), nil
		}
		return s, "", nil
	}
	s, err := r.Workspaces.GetSender(ctx, ws.ID, id)
	if errors.Is(err, identity.ErrSenderNotFound) {
		return identity.Sender{}, fmt.Sprintf("the send step's sender %s no longer exists", id), nil
	}
	if err != nil {
		return identity.Sender{}, "", err
	}
	if err := sending.CheckSender(ws, s); err != nil {
		return identity.Sender{}, "the send step's sender cannot send: " + fail.MessageOf(err), nil
	}
	return s, "", nil
}
