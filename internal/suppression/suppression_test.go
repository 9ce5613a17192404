package suppression_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/suppression"
)

func TestParseReason(t *testing.T) {
	for in, want := range map[string]suppression.Reason{
		"": suppression.Manual, "manual": suppression.Manual, "bounced": suppression.Bounced,
		"complained": suppression.Complained, "unsubscribed": suppression.Unsubscribed,
	} {
		if got, err := suppression.ParseReason(in); err != nil || got != want {
			t.Errorf("ParseReason(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Bounced", "spam", "hard bounce (General)", " manual"} {
		if _, err := suppression.ParseReason(in); !errors.Is(err, suppression.ErrBadReason) {
			t.Errorf("ParseReason(%q) = %v, want ErrBadReason", in, err)
		}
	}
	if got := suppression.ErrBadReason.Error(); got != "reason must be one of bounced, complained, unsubscribed or manual" {
		t.Errorf("ErrBadReason = %q", got)
	}
}

// Entries stored before the list had fixed reasons read as one of them.
func TestStoredReason(t *testing.T) {
	for in, want := range map[string]suppression.Reason{
		"bounced": suppression.Bounced, "complained": suppression.Complained, "unsubscribed": suppression.Unsubscribed,
		"manual": suppression.Manual, "hard bounce (General)": suppression.Bounced,
		"hard bounce (OnAccountSuppressionList)": suppression.Bounced, "complaint": suppression.Complained,
		"asked by phone": suppression.Manual, "": suppression.Manual,
	} {
		if got := suppression.StoredReason(in); got != want {
			t.Errorf("StoredReason(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseEmail(t *testing.T) {
	for in, want := range map[string]string{
		"ann@example.org": "ann@example.org", "  Ann@Example.ORG ": "ann@example.org",
		"Bob <Bob+News@Example.org>": "bob+news@example.org",
	} {
		if got, err := suppression.ParseEmail(in); err != nil || got != want {
			t.Errorf("ParseEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ann", "ann at example.org", "a@example.org, b@example.org", "a@example.org\r\nBcc: x@y.org", "a@localhost"} {
		if got, err := suppression.ParseEmail(in); err == nil {
			t.Errorf("ParseEmail(%q) = %q, want an error", in, got)
		}
	}
}

func TestFilterMatches(t *testing.T) {
	s := suppression.Suppression{Email: "ann@example.org", Reason: suppression.Bounced, CreatedAt: time.Now()}
	for f, want := range map[suppression.Filter]bool{
		{}:                            true,
		{Email: "ann@example.org"}:    true,
		{Email: "bob@example.org"}:    false,
		{Reason: suppression.Bounced}: true,
		{Reason: suppression.Manual}:  false,
		{Email: "ann@example.org", Reason: suppression.Manual}: false,
	} {
		if got := f.Matches(s); got != want {
			t.Errorf("%+v.Matches = %v, want %v", f, got, want)
		}
	}
}

// The API's object: email_id is null unless an email caused the entry.
func TestView(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 1, 0, time.FixedZone("CET", 3600))
	v := suppression.Suppression{Email: "ann@example.org", Reason: suppression.Bounced, EmailID: "e1", CreatedAt: at}.View()
	if v.Email != "ann@example.org" || v.Reason != "bounced" || v.EmailID == nil || *v.EmailID != "e1" || v.CreatedAt != "2026-11-22T09:00:01.000Z" {
		t.Errorf("View = %+v", v)
	}
	if v := (suppression.Suppression{Email: "a@example.org", Reason: suppression.Manual}).View(); v.EmailID != nil {
		t.Errorf("View without an email = %+v, want email_id nil", v)
	}
}
