package sending

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
)

// wakeLead keeps a scheduled email's wake-up out of the minute the tick
// may be sweeping while it is written: a wake-up written into a swept
// minute would never be read.
const wakeLead = 10 * time.Second

// WakeMinute is the minute a scheduled email's wake-up is due: the first
// whole minute at or after its time (never before it), and after now by
// wakeLead.
func WakeMinute(due, now time.Time) time.Time {
	at := due
	if earliest := now.Add(wakeLead); at.Before(earliest) {
		at = earliest
	}
	m := at.UTC().Truncate(time.Minute)
	if m.Before(at) {
		m = m.Add(time.Minute)
	}
	return m
}

// schedule stores a scheduled email with its wake-up.
func (s *Service) schedule(ctx context.Context, h HeldEmail, claim *IdempotencyRecord, out Outcome) (Outcome, error) {
	now := s.now().UTC()
	if held, err := s.Store.ScheduleEmail(ctx, h, WakeMinute(*h.Email.ScheduledAt, now), claim); errors.Is(err, ErrIdempotencyTaken) {
		return replay(*held, claim.RequestHash, claim.CreatedAt)
	} else if err != nil {
		return Outcome{}, err
	}
	s.finish(ctx, h.Email.WorkspaceID, claim, out)
	return out, nil
}

// Cancel cancels a scheduled email of p's workspace that has not started:
// not found for an absent or foreign id, a conflict for any other status.
func (s *Service) Cancel(ctx context.Context, p apikey.Principal, id string) (email.Email, error) {
	e, err := s.Store.GetEmail(ctx, p.WorkspaceID, id)
	if errors.Is(err, email.ErrNotFound) {
		return email.Email{}, fail.NotFound("email")
	}
	if err != nil {
		return email.Email{}, err
	}
	if e.Status == email.StatusScheduled {
		err = s.Store.CancelScheduled(ctx, p.WorkspaceID, id, s.now().UTC())
		if err == nil {
			e.Status = email.StatusCancelled
			return e, nil
		}
		if !errors.Is(err, ErrNotScheduled) {
			return email.Email{}, err
		}
		e.Status = "" // it started meanwhile
	}
	return email.Email{}, fail.Errorf(fail.KindConflict, fail.EmailNotCancellable, "",
		"only a scheduled email that has not started can be cancelled; this one is %s", statusWord(e.Status))
}

func statusWord(s email.Status) string {
	if s == "" {
		return "starting to send"
	}
	return string(s)
}

// startScheduled sends a due scheduled email as a send made now would
// go: it becomes a held email first (so a cancel answers 409 from then
// on, and a crash resumes where it stopped), then a live email is
// reviewed as any held email (its template, its own check, the
// recipient's suppression), and a test key's is captured.
func (rv *Reviewer) startScheduled(ctx context.Context, m ReviewMessage) error {
	h, err := rv.Held.GetHeld(ctx, m.WorkspaceID, m.EmailID)
	if errors.Is(err, ErrNotHeld) {
		return nil // cancelled, or released already
	}
	if err != nil {
		return err
	}
	if err := rv.Held.StartScheduled(ctx, m.WorkspaceID, m.EmailID, h.Fingerprint); errors.Is(err, ErrNotScheduled) {
		return nil
	} else if err != nil {
		return err
	}
	rv.Service.logger().InfoContext(ctx, "scheduled email started", slog.String("email_id", m.EmailID))
	if h.Email.Environment == apikey.Test {
		return rv.send(ctx, h) // a test key's email is never held: captured
	}
	return rv.Review(ctx, ReviewMessage{WorkspaceID: m.WorkspaceID, EmailID: m.EmailID, Fingerprint: h.Fingerprint})
}
