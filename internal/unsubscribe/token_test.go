package unsubscribe_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

var signer = unsubscribe.Signer{Secret: []byte("test-secret")}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// Every kind of token reads back as it was signed, URL-safe and compact.
func TestSignVerify(t *testing.T) {
	ws, c, camp, auto := newID(), newID(), newID(), newID()
	cases := map[string]struct {
		tok    unsubscribe.Token
		maxLen int
	}{
		"contact, no source":   {unsubscribe.Token{WorkspaceID: ws, ContactID: c}, 67},
		"contact, campaign":    {unsubscribe.Token{WorkspaceID: ws, ContactID: c, Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: camp}}, 88},
		"contact, automation":  {unsubscribe.Token{WorkspaceID: ws, ContactID: c, Source: unsubscribe.Source{Kind: unsubscribe.SourceAutomation, ID: auto}}, 88},
		"address, campaign":    {unsubscribe.Token{WorkspaceID: ws, Address: "Ann.Lee+news@Example.com", Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: camp}}, 120},
		"address of 320 bytes": {unsubscribe.Token{WorkspaceID: ws, Address: strings.Repeat("a", 64) + "@" + strings.Repeat("b", 255)}, 500},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tok, err := signer.Sign(tc.tok)
			if err != nil {
				t.Fatal(err)
			}
			if len(tok) > tc.maxLen {
				t.Errorf("token of %d characters, want at most %d", len(tok), tc.maxLen)
			}
			if strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
				t.Errorf("token %q is not URL-safe", tok)
			}
			got, err := signer.Verify(tok)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.tok {
				t.Errorf("Verify = %+v, want %+v", got, tc.tok)
			}
		})
	}
}

// Any change to a token, a token of another secret and garbage are all
// ErrInvalidToken, the one answer: a caller learns nothing more.
func TestVerifyRefuses(t *testing.T) {
	good, err := signer.Sign(unsubscribe.Token{WorkspaceID: newID(), ContactID: newID()})
	if err != nil {
		t.Fatal(err)
	}
	other, err := unsubscribe.Signer{Secret: []byte("other")}.Sign(unsubscribe.Token{WorkspaceID: newID(), ContactID: newID()})
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) string {
		b := []byte(good)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	cases := map[string]string{
		"empty":                 "",
		"garbage":               "hello",
		"not base64":            strings.Repeat("*", len(good)),
		"padded":                good + "=",
		"first character":       flip(0),
		"an id character":       flip(10),
		"last character":        flip(len(good) - 1),
		"cut short":             good[:len(good)-2],
		"one character more":    good + "A",
		"another secret's":      other,
		"payload without a mac": base64.RawURLEncoding.EncodeToString(raw[:len(raw)-16]),
		"huge":                  strings.Repeat("A", 100_000),
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			if got, err := signer.Verify(tok); !errors.Is(err, unsubscribe.ErrInvalidToken) {
				t.Errorf("Verify = %+v, %v; want ErrInvalidToken", got, err)
			}
		})
	}
	if _, err := (unsubscribe.Signer{}).Verify(good); !errors.Is(err, unsubscribe.ErrInvalidToken) {
		t.Errorf("no secret: err = %v, want ErrInvalidToken", err)
	}
}

// A token that cannot be written is refused at signing, never sent.
func TestSignRefuses(t *testing.T) {
	ws, c := newID(), newID()
	cases := map[string]unsubscribe.Token{
		"no recipient":         {WorkspaceID: ws},
		"contact and address":  {WorkspaceID: ws, ContactID: c, Address: "a@example.com"},
		"workspace not a UUID": {WorkspaceID: "ws1", ContactID: c},
		"contact not a UUID":   {WorkspaceID: ws, ContactID: "c1"},
		"address too long":     {WorkspaceID: ws, Address: strings.Repeat("a", 321)},
		"source id, no kind":   {WorkspaceID: ws, ContactID: c, Source: unsubscribe.Source{ID: newID()}},
		"source kind, bad id":  {WorkspaceID: ws, ContactID: c, Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: "x"}},
		"unknown source kind":  {WorkspaceID: ws, ContactID: c, Source: unsubscribe.Source{Kind: 9, ID: newID()}},
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			if s, err := signer.Sign(tok); err == nil {
				t.Errorf("Sign = %q, want an error", s)
			}
		})
	}
	if _, err := (unsubscribe.Signer{}).Sign(unsubscribe.Token{WorkspaceID: ws, ContactID: c}); err == nil {
		t.Error("signed without a secret")
	}
}

func FuzzVerify(f *testing.F) {
	good, _ := signer.Sign(unsubscribe.Token{WorkspaceID: newID(), Address: "a@example.com"})
	f.Add(good)
	f.Add("")
	f.Add(good[:5] + "\r\n" + good[5:]) // Go's base64 decoder skips line breaks
	f.Add(good + "%0A")
	f.Fuzz(func(t *testing.T, tok string) {
		got, err := signer.Verify(tok)
		if err != nil {
			return
		}
		again, err := signer.Sign(got)
		if err != nil || again != tok {
			t.Errorf("verified %q as %+v, which signs as %q (%v)", tok, got, again, err)
		}
	})
}
