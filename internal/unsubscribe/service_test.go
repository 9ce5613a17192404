package unsubscribe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

type fakeContacts struct {
	unsubscribe func(ws, id string, at time.Time) (contact.Contact, error)
	calls       int
}

func (f *fakeContacts) Unsubscribe(_ context.Context, ws, id string, at time.Time) (contact.Contact, error) {
	f.calls++
	return f.unsubscribe(ws, id, at)
}

type fakeSuppressions struct {
	put   func(ws string, s suppression.Suppression) error
	calls int
}

func (f *fakeSuppressions) PutSuppression(_ context.Context, ws string, s suppression.Suppression) (suppression.Suppression, bool, error) {
	f.calls++
	return s, true, f.put(ws, s)
}

func TestUnsubscribe(t *testing.T) {
	ws, c := newID(), newID()
	at := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	fault := errors.New("store fault")
	contactTok, _ := signer.Sign(unsubscribe.Token{WorkspaceID: ws, ContactID: c, Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: newID()}})
	addrTok, _ := signer.Sign(unsubscribe.Token{WorkspaceID: ws, Address: "ann@example.com"})
	cases := map[string]struct {
		token           string
		contactErr      error
		suppressErr     error
		wantErr         error
		wantContacts    int
		wantSuppression int
	}{
		"contact":                     {token: contactTok, wantContacts: 1},
		"contact deleted since":       {token: contactTok, contactErr: contact.ErrNotFound, wantContacts: 1},
		"contact, store fault":        {token: contactTok, contactErr: fault, wantErr: fault, wantContacts: 1},
		"address":                     {token: addrTok, wantSuppression: 1},
		"address, store fault":        {token: addrTok, suppressErr: fault, wantErr: fault, wantSuppression: 1},
		"tampered: nothing is called": {token: tamper(contactTok), wantErr: unsubscribe.ErrInvalidToken},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			contacts := &fakeContacts{unsubscribe: func(gotWS, id string, gotAt time.Time) (contact.Contact, error) {
				if gotWS != ws || id != c || !gotAt.Equal(at) {
					t.Errorf("Unsubscribe(%s, %s, %v), want (%s, %s, %v)", gotWS, id, gotAt, ws, c, at)
				}
				return contact.Contact{ID: id}, tc.contactErr
			}}
			suppressions := &fakeSuppressions{put: func(gotWS string, s suppression.Suppression) error {
				if want := (suppression.Suppression{Email: "ann@example.com", Reason: suppression.Unsubscribed}); gotWS != ws || s != want {
					t.Errorf("PutSuppression(%s, %+v), want (%s, %+v)", gotWS, s, ws, want)
				}
				return tc.suppressErr
			}}
			svc := &unsubscribe.Service{Signer: signer, Contacts: contacts, Suppressions: suppressions, Now: func() time.Time { return at }}
			if err := svc.Unsubscribe(t.Context(), tc.token); !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if contacts.calls != tc.wantContacts || suppressions.calls != tc.wantSuppression {
				t.Errorf("%d contact and %d suppression writes, want %d and %d", contacts.calls, suppressions.calls, tc.wantContacts, tc.wantSuppression)
			}
		})
	}
}

// Check, what a GET does, verifies and writes nothing.
func TestCheckWritesNothing(t *testing.T) {
	contacts := &fakeContacts{}
	suppressions := &fakeSuppressions{}
	svc := &unsubscribe.Service{Signer: signer, Contacts: contacts, Suppressions: suppressions}
	good, _ := signer.Sign(unsubscribe.Token{WorkspaceID: newID(), ContactID: newID()})
	if err := svc.Check(good); err != nil {
		t.Errorf("Check(good) = %v", err)
	}
	if err := svc.Check(good + "x"); !errors.Is(err, unsubscribe.ErrInvalidToken) {
		t.Errorf("Check(tampered) = %v", err)
	}
	if contacts.calls+suppressions.calls != 0 {
		t.Error("Check wrote")
	}
}

// tamper changes one character in the middle of token to another: the
// last one could already be the replacement, or differ only in bits the
// encoding does not use.
func tamper(token string) string {
	i := len(token) / 2
	c := byte('A')
	if token[i] == c {
		c = 'B'
	}
	return token[:i] + string(c) + token[i+1:]
}
