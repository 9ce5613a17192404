package email

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// RawReader reads the exact message of a workspace's email (the local
// stack's devstack.RawMessages); it fails for an email whose message is
// not kept.
type RawReader interface {
	Raw(workspaceID, emailID string) ([]byte, error)
}

// Captured is what test keys sent: captured, never delivered.
type Captured struct {
	Emails Reader
	// Raw is nil where messages are not kept: a deployed stack keeps the
	// email, not its MIME.
	Raw RawReader
}

var (
	// ErrNotCaptured refuses an email that a live key sent.
	ErrNotCaptured = fail.Errorf(fail.KindConflict, "", "", "not captured in test mode: a live key sent it")
	// ErrNoRawMessages refuses --raw where no messages are kept.
	ErrNoRawMessages error = fail.Errorf(fail.KindConflict, "", "", "raw messages are kept only by the local stack (sesame dev), not by a deployed stack")
)

// List returns every email captured in test mode, newest first.
func (c *Captured) List(ctx context.Context, workspaceID string) ([]Email, error) {
	return ListAll(ctx, c.Emails, workspaceID, Filter{Environment: apikey.Test})
}

// Get returns one captured email; its id is case-insensitive.
func (c *Captured) Get(ctx context.Context, workspaceID, emailID string) (Email, error) {
	e, err := get(ctx, c.Emails, workspaceID, emailID)
	if err != nil {
		return Email{}, err
	}
	if e.Environment != apikey.Test {
		return Email{}, fail.Wrap(ErrNotCaptured, "email %s", emailID)
	}
	return e, nil
}

// Message returns the exact MIME of a captured email, as the test key's
// send built it.
func (c *Captured) Message(ctx context.Context, workspaceID, emailID string) ([]byte, error) {
	e, err := c.Get(ctx, workspaceID, emailID)
	if err != nil {
		return nil, err
	}
	if c.Raw == nil {
		return nil, ErrNoRawMessages
	}
	raw, err := c.Raw.Raw(workspaceID, e.ID)
	if err != nil {
		return nil, fmt.Errorf("email %s: %w", emailID, err)
	}
	return raw, nil
}
