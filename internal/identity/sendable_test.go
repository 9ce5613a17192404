package identity_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/identity"
)

// senderStore and domainReader are function-field fakes.
type senderStore struct {
	list func(ctx context.Context, ws string) ([]identity.Sender, error)
	def  func(ctx context.Context, ws string) (*identity.Sender, error)
}

func (f senderStore) AddSender(context.Context, string, identity.Sender, bool) (identity.Sender, error) {
	return identity.Sender{}, errors.New("not used")
}
func (f senderStore) ListSenders(ctx context.Context, ws string) ([]identity.Sender, error) {
	return f.list(ctx, ws)
}
func (f senderStore) DefaultSender(ctx context.Context, ws string) (*identity.Sender, error) {
	return f.def(ctx, ws)
}

type domainReader func(ctx context.Context, ws, name string) (identity.Domain, error)

func (f domainReader) GetDomain(ctx context.Context, ws, name string) (identity.Domain, error) {
	return f(ctx, ws, name)
}

func TestSendable(t *testing.T) {
	const ws = "0190b7a0-0000-7000-8000-000000000001"
	hello := identity.Sender{ID: "s1", Email: "hello@ok.example"}
	news := identity.Sender{ID: "s2", Email: "news@OK.example"}
	pending := identity.Sender{ID: "s3", Email: "a@pending.example"}
	gone := identity.Sender{ID: "s4", Email: "b@gone.example"}
	domains := map[string]identity.DomainStatus{"ok.example": identity.DomainVerified, "pending.example": identity.DomainPending}
	fault := errors.New("store down")
	cases := map[string]struct {
		senders  []identity.Sender
		def      *identity.Sender
		failOn   string // the domain whose read fails
		want     []string
		wantDef  string
		wantErr  error
		wantRead int // domain reads
	}{
		"verified only, default kept": {senders: []identity.Sender{hello, pending, news, gone}, def: &hello, want: []string{"s1", "s2"}, wantDef: "s1", wantRead: 3},
		"default not sendable":        {senders: []identity.Sender{hello, pending}, def: &pending, want: []string{"s1"}, wantDef: "", wantRead: 2},
		"none":                        {senders: nil, want: []string{}},
		"a domain read fails":         {senders: []identity.Sender{hello}, failOn: "ok.example", wantErr: fault, wantRead: 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			reads := 0
			s := &identity.Senders{
				Store: senderStore{
					list: func(context.Context, string) ([]identity.Sender, error) { return c.senders, nil },
					def:  func(context.Context, string) (*identity.Sender, error) { return c.def, nil },
				},
				Domains: domainReader(func(_ context.Context, _, name string) (identity.Domain, error) {
					reads++
					if name == c.failOn {
						return identity.Domain{}, fault
					}
					st, ok := domains[name]
					if !ok {
						return identity.Domain{}, identity.ErrDomainNotFound
					}
					return identity.Domain{Name: name, Status: st}, nil
				}),
			}
			got, err := s.Sendable(t.Context(), ws)
			if reads != c.wantRead {
				t.Errorf("%d domain reads, want %d (one per domain)", reads, c.wantRead)
			}
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, snd := range got.Senders {
				ids = append(ids, snd.ID)
			}
			if !slices.Equal(ids, c.want) || got.DefaultID != c.wantDef {
				t.Errorf("Sendable = %v default %q, want %v default %q", ids, got.DefaultID, c.want, c.wantDef)
			}
		})
	}
}
