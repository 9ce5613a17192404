package automation

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
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/mergetag"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// MaxQueueDelay is the longest wait the queue holds (SQS DelaySeconds):
// a longer one is a wake-up item the tick reads.
const MaxQueueDelay = 15 * time.Minute

// Errors of the run store.
var (
	ErrRunNotFound = errors.New("run not found")
	// ErrRunMoved is an advance that lost a race: another delivery
	// executed the step, or the run ended, since it was read.
	ErrRunMoved = errors.New("the run moved meanwhile")
)

// Advance is what executing one step changes in its run.
type Advance struct {
	// Step is the next step to execute, due at DueAt.
	Step   int
	DueAt  time.Time
	Status RunStatus
	Reason string
	Log    StepLog
	// Wake writes a wake-up item at DueAt, for a wait longer than the
	// queue's delay holds.
	Wake bool
}

// RunStore reads and moves runs (dynamo.AutomationRuns).
type RunStore interface {
	GetRun(ctx context.Context, workspaceID, automationID, runID string) (Run, error)
	// Steps reads a kept version of an automation's steps.
	Steps(ctx context.Context, workspaceID, automationID string, version int) ([]Step, error)
	// Advance applies a to r unless r moved from the step it read
	// (ErrRunMoved); a run that ends gives up its live-run claim at once.
	Advance(ctx context.Context, r Run, a Advance) error
	// TagContact adds and removes tags of a contact, as sets.
	TagContact(ctx context.Context, workspaceID, contactID string, add, remove []string) error
}

// Audience reads a contact as it is now, and whether its address is on
// the do-not-send list.
type Audience interface {
	GetContact(ctx context.Context, workspaceID, id string) (contact.Contact, error)
	Suppressed(ctx context.Context, workspaceID, address string) (bool, error)
}

// Mail is the email store side of a send step (dynamo.CampaignSends).
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

// Waker puts a wake-up on the automations queue after delay.
type Waker interface {
	Wake(ctx context.Context, m WakeMessage, delay time.Duration) error
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
		var m WakeMessage
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
func (r *Runner) Wake(ctx context.Context, m WakeMessage) error {
	run, err := r.Runs.GetRun(ctx, m.WorkspaceID, m.AutomationID, m.RunID)
	if errors.Is(err, ErrRunNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if run.Status != RunActive || m.Step != nil && *m.Step != run.Step {
		return nil
	}
	if wait := run.DueAt.Sub(r.now()); wait > 0 {
		if wait <= MaxQueueDelay {
			return r.Queue.Wake(ctx, m, wait)
		}
		return nil // its wake-up item brings it back
	}
	steps, err := r.steps(ctx, run)
	if err != nil {
		return err
	}
	for run.Status == RunActive && !run.DueAt.After(r.now()) {
		a, err := r.execute(ctx, run, steps)
		if err != nil {
			return err
		}
		if err := r.Runs.Advance(ctx, run, a); errors.Is(err, ErrRunMoved) {
			return nil // another delivery executed it and carries on
		} else if err != nil {
			return err
		}
		run = applied(run, a, r.now())
	}
	if run.Status == RunActive && !run.DueAt.After(r.now().Add(MaxQueueDelay)) {
		return r.Queue.Wake(ctx, m.ForStep(run.Step), run.DueAt.Sub(r.now()))
	}
	return nil
}

// applied is run after a.
func applied(run Run, a Advance, now time.Time) Run {
	run.Step, run.DueAt, run.Status, run.Reason, run.UpdatedAt = a.Step, a.DueAt, a.Status, a.Reason, now
	run.Log = append(run.Log, a.Log)
	if a.Status != RunActive {
		run.EndedAt = &now
	}
	return run
}

// steps reads the version the run executes, once per process.
func (r *Runner) steps(ctx context.Context, run Run) ([]Step, error) {
	k := run.WorkspaceID + "/" + run.AutomationID + "/" + strconv.Itoa(run.Version)
	if v, ok := r.versions.Load(k); ok {
		return v.([]Step), nil
	}
	steps, err := r.Runs.Steps(ctx, run.WorkspaceID, run.AutomationID, run.Version)
	if err != nil {
		return nil, err
	}
	r.versions.Store(k, steps)
	return steps, nil
}

// execute runs the run's due step and says how the run moves.
func (r *Runner) execute(ctx context.Context, run Run, steps []Step) (Advance, error) {
	now := r.now()
	if run.Step >= len(steps) {
		return Advance{Step: run.Step, DueAt: run.DueAt, Status: RunCompleted,
			Log: StepLog{Step: run.Step, At: now, Outcome: "completed"}}, nil
	}
	step := steps[run.Step]
	next := Advance{Step: run.Step + 1, DueAt: now, Status: RunActive, Log: StepLog{Step: run.Step, Type: step.Type, At: now}}
	var err error
	switch step.Type {
	case StepSend:
		err = r.send(ctx, run, step, &next)
	case StepTag:
		err = r.tag(ctx, run, step, &next)
	case StepWait:
		// Logged when the wait starts: what it waits, and until when.
		next.Log.Outcome = "waiting " + step.Duration.String()
		if run.Environment != apikey.Test {
			next.DueAt = now.Add(time.Duration(step.Duration))
			next.Log.Detail = "until " + next.DueAt.UTC().Format(time.RFC3339)
			next.Wake = time.Duration(step.Duration) > MaxQueueDelay
		} else {
			next.Log.Detail = "test mode: the wait took no time"
		}
	default:
		next.Status, next.Reason = RunStopped, fmt.Sprintf("step %d has an unknown type %q", run.Step, step.Type)
	}
	if err != nil {
		return Advance{}, err
	}
	if next.Status == RunActive && next.Step >= len(steps) {
		next.Status = RunCompleted
	}
	return next, nil
}

// stop ends the run at its step with reason.
func stop(a *Advance, outcome, reason string) {
	a.Status, a.Reason, a.Log.Outcome, a.Log.Detail = RunStopped, reason, outcome, reason
	a.Step--
}

// failed ends the run at its send step, whose email could not go, with
// reason.
func failed(a *Advance, reason string) {
	stop(a, "failed", reason)
	a.Status = RunFailed
}

// ReasonContactDeleted is why a run whose contact was deleted stopped.
const ReasonContactDeleted = "the contact was deleted"

// tag adds and removes the contact's tags; a test key's run tags nobody.
func (r *Runner) tag(ctx context.Context, run Run, step Step, a *Advance) error {
	a.Log.Outcome = "tagged"
	if run.Environment == apikey.Test {
		a.Log.Detail = "test mode: nobody tagged"
		return nil
	}
	err := r.Runs.TagContact(ctx, run.WorkspaceID, run.ContactID, step.Add, step.Remove)
	if errors.Is(err, contact.ErrNotFound) {
		stop(a, "stopped", ReasonContactDeleted)
		return nil
	}
	return err
}

// send sends the step's email to the contact as it is now, once: its id
// derives from the run and the step, and is claimed before it goes.
func (r *Runner) send(ctx context.Context, run Run, step Step, a *Advance) error {
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
	subject, body, err := RenderSend(step, run, c)
	if err != nil {
		failed(a, err.Error())
		return nil
	}
	mode := listmail.Tracking(ws)
	e := email.Email{
		ID: EmailID(run, run.Step), WorkspaceID: run.WorkspaceID, To: c.Email, Subject: subject,
		Status: email.StatusSent, Type: email.TypeAutomation, Environment: run.Environment, SentAt: r.now(), TrackingMode: mode,
		Source: email.Source{AutomationID: run.AutomationID, RunID: run.ID, Step: run.Step, ContactID: c.ID},
	}
	a.Log.EmailID = e.ID
	claimed, err := r.Mail.ClaimEmail(ctx, e)
	if err != nil {
		return err
	}
	if !claimed {
		at, found, err := r.Mail.ClaimedAt(ctx, e.WorkspaceID, e.ID)
		if err != nil {
			return err
		}
		if !found || r.now().Sub(at) < ClaimInFlight {
			return ErrStepInFlight
		}
		a.Log.Outcome = "sent" // by an earlier delivery of this step
		return nil
	}
	msg, err := Compose(r.Links, ws, from, run, c, subject, body, e.ID)
	var raw []byte
	if err == nil {
		raw, err = r.Build(msg)
	}
	if errors.Is(err, compose.ErrInvalid) {
		listmail.Refuse(ctx, r.Mail, r.Failures, r.logger(), e, "not sent: "+err.Error())
		failed(a, "not sent: "+err.Error())
		return nil
	}
	if err != nil {
		listmail.Release(ctx, r.Mail, r.logger(), e)
		return err
	}
	in := sending.SendInput{
		Raw: raw, ConfigurationSet: r.ConfigSets.For(mode),
		Tags: map[string]string{"email_id": e.ID, "workspace_id": e.WorkspaceID}, From: from.Email, To: c.Email,
	}
	if !live {
		r.capture(ctx, e, in)
		a.Log.Outcome, a.Log.Detail = "captured", "test mode: captured, not delivered"
		return nil
	}
	if err := r.pace(ctx, e.WorkspaceID); err != nil {
		listmail.Release(ctx, r.Mail, r.logger(), e)
		return fmt.Errorf("pace automation email: %w", err)
	}
	if _, err := r.Transport.Send(ctx, in); err != nil {
		if fail.IsPermanent(err) {
			reason := "rejected by the email provider: " + fail.MessageOf(err)
			listmail.Refuse(ctx, r.Mail, r.Failures, r.logger(), e, reason)
			failed(a, reason)
			return nil
		}
		listmail.Release(ctx, r.Mail, r.logger(), e)
		return fmt.Errorf("send automation email: %w", err)
	}
	a.Log.Outcome = "sent"
	return nil
}

// pace waits for a slot of the workspace's automation share.
func (r *Runner) pace(ctx context.Context, workspaceID string) error {
	if r.Pacer == nil {
		return nil
	}
	return r.Pacer.Wait(ctx, capacity.Claimant{Class: capacity.Automation, Workspace: workspaceID})
}

// RenderSend is a send step's subject and html for run's contact c, as
// the runner sends them (before the footer); an error says which does
// not render.
func RenderSend(step Step, run Run, c contact.Contact) (subject, html string, err error) {
	vars := varsOf(run, c)
	if subject, err = mergetag.RenderSubject(step.Subject, vars); err != nil {
		return "", "", fmt.Errorf("the subject does not render: %w", err)
	}
	if html, err = mergetag.RenderHTML(step.HTML, vars); err != nil {
		return "", "", fmt.Errorf("the html does not render: %w", err)
	}
	return subject, html, nil
}

// Compose is the message a send step of run sends c (its rendered subject
// and html), with the footer and the one-click unsubscribe headers: the
// runner's and the owner's view of an automation email
// (owner.Emails.Content) are both this.
func Compose(links listmail.Links, ws workspace.Workspace, from identity.Sender, run Run, c contact.Contact, subject, html, emailID string) (compose.Message, error) {
	return listmail.WithUnsubscribe(links, ws, from, compose.Message{
		From: from.Address(), To: c.Email, ReplyTo: from.ReplyTo, Subject: subject, HTML: html, EmailID: emailID,
	}, unsubscribe.Token{WorkspaceID: run.WorkspaceID, ContactID: c.ID, Source: unsubscribe.Source{Kind: unsubscribe.SourceAutomation, ID: run.AutomationID}})
}

// capture logs a test key's email as it would have gone, and keeps its
// message where a Capturer is set.
func (r *Runner) capture(ctx context.Context, e email.Email, in sending.SendInput) {
	r.logger().InfoContext(ctx, "captured test email", slog.Bool("test", true),
		slog.String("email_id", e.ID), slog.String("workspace_id", e.WorkspaceID),
		slog.String("to", e.To), slog.String("subject", e.Subject), slog.String("type", string(e.Type)))
	if r.Captures == nil {
		return
	}
	if err := r.Captures.Capture(ctx, in); err != nil {
		r.logger().WarnContext(ctx, "captured message not kept", slog.String("email_id", e.ID), slog.Any("err", err))
	}
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

// varsOf are the values a run's content reads: its frozen payload and
// the contact now.
func varsOf(run Run, c contact.Contact) mergetag.Vars {
	v := mergetag.ContactVars(c)
	v.Event = run.Payload
	return v
}

// TagsAfter is tags with add added and remove removed, as sets: in the
// order they came, each once, so a step applied twice changes nothing.
func TagsAfter(tags, add, remove []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, r := range remove {
		seen[r] = true
	}
	for _, t := range append(append([]string{}, tags...), add...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
