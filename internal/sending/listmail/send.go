package listmail

import (
	"context"
	"errors"
	"log/slog"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/sending"
)

// Sender sends one list email at most once, the same way for a campaign
// recipient and an automation's send step: claim its id, build it, hand
// it to SES; refuse it for good when it can never go, release its claim
// when it did not go now.
type Sender struct {
	Claims     Claims
	Transport  sending.Transport
	ConfigSets sending.ConfigSets
	// Build writes a message's raw MIME form (compose/raw.Build).
	Build    func(compose.Message) ([]byte, error)
	Failures sending.FailureRecorder
	// Captures keeps a test email's message (nil: logged alone).
	Captures sending.Capturer
	Logger   *slog.Logger
}

// Mail is one list email: what differs between its callers.
type Mail struct {
	// Email is the record claimed before it goes: id, recipient, subject
	// as rendered, tracking mode.
	Email email.Email
	From  string
	// Message is the email's message, asked for once the claim is held.
	Message func() (compose.Message, error)
	// Capture keeps it as a test key's email, never delivered.
	Capture bool
	// Again says whether to try SES again after a transient failure of
	// try (1, 2, …), having waited as it sees fit; nil tries once.
	Again func(ctx context.Context, try int) bool
}

// Outcome is what became of a list email.
type Outcome uint8

const (
	// Unclaimed: the claim was not written (Err); nothing went.
	Unclaimed Outcome = iota
	// ClaimedBefore: an earlier delivery holds the claim; it is never sent
	// again.
	ClaimedBefore
	// Sent: SES took it.
	Sent
	// Captured: kept as a test email.
	Captured
	// Refused: it can never go (Reason); recorded failed.
	Refused
	// Released: it did not go now (Err); its claim is freed for a later
	// delivery.
	Released
)

// Result is an Outcome with why.
type Result struct {
	Outcome Outcome
	Reason  string
	Err     error
}

func (s Sender) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Send claims m's email, builds it and hands it to SES (or captures it).
func (s Sender) Send(ctx context.Context, m Mail) Result {
	e := m.Email
	claimed, err := s.Claims.ClaimEmail(ctx, e)
	if err != nil {
		return Result{Outcome: Unclaimed, Err: err}
	}
	if !claimed {
		return Result{Outcome: ClaimedBefore}
	}
	msg, err := m.Message()
	var raw []byte
	if err == nil {
		raw, err = s.Build(msg)
	}
	if errors.Is(err, compose.ErrInvalid) {
		return s.refuse(ctx, e, "not sent: "+err.Error())
	}
	if err != nil {
		Release(ctx, s.Claims, s.logger(), e)
		return Result{Outcome: Released, Err: err}
	}
	in := sending.SendInput{
		Raw: raw, ConfigurationSet: s.ConfigSets.For(e.TrackingMode),
		Tags: map[string]string{"email_id": e.ID, "workspace_id": e.WorkspaceID}, From: m.From, To: e.To,
	}
	if m.Capture {
		s.capture(ctx, e, in)
		return Result{Outcome: Captured}
	}
	for try := 1; ; try++ {
		_, err = s.Transport.Send(ctx, in)
		switch {
		case err == nil:
			return Result{Outcome: Sent}
		case fail.IsPermanent(err):
			return s.refuse(ctx, e, "rejected by the email provider: "+fail.MessageOf(err))
		}
		if m.Again == nil || !m.Again(ctx, try) {
			break
		}
	}
	Release(ctx, s.Claims, s.logger(), e)
	return Result{Outcome: Released, Err: err}
}

func (s Sender) refuse(ctx context.Context, e email.Email, reason string) Result {
	Refuse(ctx, s.Claims, s.Failures, s.logger(), e, reason)
	return Result{Outcome: Refused, Reason: reason}
}

// capture logs a test key's email as it would have gone, and keeps its
// message where a Capturer is set.
func (s Sender) capture(ctx context.Context, e email.Email, in sending.SendInput) {
	s.logger().InfoContext(ctx, "captured test email", slog.Bool("test", true),
		slog.String("email_id", e.ID), slog.String("workspace_id", e.WorkspaceID),
		slog.String("to", e.To), slog.String("subject", e.Subject), slog.String("type", string(e.Type)))
	if s.Captures == nil {
		return
	}
	if err := s.Captures.Capture(ctx, in); err != nil {
		s.logger().WarnContext(ctx, "captured message not kept", slog.String("email_id", e.ID), slog.Any("err", err))
	}
}
