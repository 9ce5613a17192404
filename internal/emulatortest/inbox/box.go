package inbox

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/ses"
)

// Box is what left the local stack for some recipients.
type Box struct {
	// Kept are the raw messages the local stack kept, sent or captured.
	Kept []Message
	// Stored are the messages the SES emulator took, as its own MIME
	// parser (mailparser) read them.
	Stored []ses.StoredEmail
}

// Read gathers the messages kept in dir (devstack.RawMessages keeps one
// workspace's as dir/<email id>.eml; a missing dir holds none) and those
// the SES emulator at sesURL took at or after since ("" reads no store).
func Read(ctx context.Context, dir, sesURL string, since time.Time) (Box, error) {
	var b Box
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return b, err
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".eml")
		if !ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return b, err
		}
		m := Parse(raw)
		m.EmailID = id
		b.Kept = append(b.Kept, m)
	}
	if sesURL != "" {
		if b.Stored, err = ses.ReadEmulatorStoreSince(ctx, sesURL, since); err != nil {
			return b, err
		}
	}
	return b, nil
}

// keptTo indexes the kept messages by recipient.
func (b Box) keptTo() map[string][]Message {
	out := map[string][]Message{}
	for _, m := range b.Kept {
		for _, to := range m.To {
			out[to] = append(out[to], m)
		}
		if len(m.To) == 0 {
			out[""] = append(out[""], m)
		}
	}
	return out
}

// storedTo indexes the emulator's messages by recipient.
func (b Box) storedTo() map[string][]ses.StoredEmail {
	out := map[string][]ses.StoredEmail{}
	for _, s := range b.Stored {
		for _, to := range s.Destination.To {
			addr := to
			if a, err := mail.ParseAddress(to); err == nil {
				addr = a.Address
			}
			out[strings.ToLower(addr)] = append(out[strings.ToLower(addr)], s)
		}
	}
	return out
}

// String summarises the box for a failure message.
func (b Box) String() string {
	return fmt.Sprintf("%d kept messages, %d in the SES emulator", len(b.Kept), len(b.Stored))
}

// Since is what b holds that earlier did not: the messages of a later
// step, when an earlier one went to the same recipients.
func (b Box) Since(earlier Box) Box {
	seenKept, seenStored := map[string]bool{}, map[string]bool{}
	for _, m := range earlier.Kept {
		seenKept[m.EmailID] = true
	}
	for _, s := range earlier.Stored {
		seenStored[s.MessageID] = true
	}
	var out Box
	for _, m := range b.Kept {
		if !seenKept[m.EmailID] {
			out.Kept = append(out.Kept, m)
		}
	}
	for _, s := range b.Stored {
		if !seenStored[s.MessageID] {
			out.Stored = append(out.Stored, s)
		}
	}
	return out
}
