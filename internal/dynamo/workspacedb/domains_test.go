package workspacedb_test

import (
	"errors"
	"testing"

	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// An SES identity is account-wide, so a domain belongs to one workspace:
// another workspace can neither add nor verify it.
func TestDomainIsClaimedByOneWorkspace(t *testing.T) {
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	a, err := store.Workspaces.CreateWorkspace(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.Workspaces.CreateWorkspace(ctx, "B")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Domains.AddDomain(ctx, a.ID, "Acme.Example", nil); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		ws   string
		want error
	}{
		"the owner again":   {a.ID, identity.ErrDomainExists},
		"another workspace": {b.ID, identity.ErrDomainTaken},
		"an absent one":     {"no-such-workspace", workspace.ErrNotFound},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := store.Domains.CanAddDomain(ctx, tc.ws, "acme.example"); !errors.Is(err, tc.want) {
				t.Errorf("CanAddDomain = %v, want %v", err, tc.want)
			}
			if _, err := store.Domains.AddDomain(ctx, tc.ws, "ACME.example", nil); !errors.Is(err, tc.want) {
				t.Errorf("AddDomain = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := store.Domains.SetDomainStatus(ctx, b.ID, "acme.example", identity.DomainVerified, nil); !errors.Is(err, identity.ErrDomainNotFound) {
		t.Errorf("verify through another workspace: err = %v", err)
	}
	if ws, err := store.Workspaces.GetWorkspace(ctx, b.ID); err != nil || len(ws.VerifiedDomains) != 0 {
		t.Errorf("workspace B verified domains = %v (err %v)", ws.VerifiedDomains, err)
	}
}
