package workspace_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestWorkspaces(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	w := &workspace.Service{Store: store.Workspaces}

	if all, err := w.List(ctx); err != nil || all == nil || len(all) != 0 {
		t.Fatalf("List of no workspaces = %#v (err %v), want an empty list", all, err)
	}
	_, err := w.Create(ctx, "")
	failtest.WantInput(t, err, "name")
	acme, err := w.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	if acme.ID == "" || acme.Name != "Acme" || acme.CreatedAt.IsZero() {
		t.Errorf("Create = %+v", acme)
	}
	beta, err := w.Create(ctx, "Beta")
	if err != nil {
		t.Fatal(err)
	}
	all, err := w.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ws := range all {
		ids = append(ids, ws.ID)
	}
	slices.Sort(ids)
	want := []string{acme.ID, beta.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("List = %v, want %v (the empty name stored nothing)", ids, want)
	}
	if got, err := w.Get(ctx, beta.ID); err != nil || got.Name != "Beta" {
		t.Errorf("Get = %+v (err %v)", got, err)
	}
	_, err = w.Get(ctx, uuid.NewString())
	failtest.WantIs(t, err, workspace.ErrNotFound)
}

func TestWorkspacesUpdate(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	w := &workspace.Service{Store: store.Workspaces}
	acme, err := w.Create(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	hundred, tracking, on, brands := 100, "essential", true, []string{"Acme", "AcmeCo"}
	got, err := w.Update(ctx, acme.ID, workspace.Settings{MonthlyAllowance: &hundred, DefaultTracking: &tracking,
		TrackingOffProvisioned: &on, Brands: &brands})
	if err != nil {
		t.Fatal(err)
	}
	if got.MonthlyAllowance != 100 || got.DefaultTracking != "essential" || !got.TrackingOffProvisioned || !slices.Equal(got.Brands, brands) {
		t.Errorf("Update = %+v", got)
	}

	minus, zero, loud, empty, twoLines := -1, 0, "loud", "", "Acme Ltd\n1 Main St"
	cases := map[string]struct {
		id     string
		change workspace.Settings
		field  string // the input refused, or
		want   error
	}{
		"negative allowance":          {id: acme.ID, change: workspace.Settings{MonthlyAllowance: &minus}, field: "monthly-allowance"},
		"unknown tracking":            {id: acme.ID, change: workspace.Settings{DefaultTracking: &loud}, field: "default-tracking"},
		"empty tracking":              {id: acme.ID, change: workspace.Settings{DefaultTracking: &empty}, field: "default-tracking"},
		"a bad setting beside a good": {id: acme.ID, change: workspace.Settings{MonthlyAllowance: &zero, DefaultTracking: &loud}, field: "default-tracking"},
		"postal address on two lines": {id: acme.ID, change: workspace.Settings{PostalAddress: &twoLines}, field: "postal-address"},
		"nothing":                     {id: acme.ID, want: workspace.ErrNothingToChange},
		"absent workspace":            {id: uuid.NewString(), change: workspace.Settings{MonthlyAllowance: &zero}, want: workspace.ErrNotFound},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := w.Update(t.Context(), tc.id, tc.change)
			if tc.field != "" {
				failtest.WantInput(t, err, tc.field)
			} else {
				failtest.WantIs(t, err, tc.want)
			}
		})
	}
	if after, err := w.Get(ctx, acme.ID); err != nil || after.MonthlyAllowance != 100 || after.DefaultTracking != "essential" {
		t.Errorf("refused changes changed the workspace: %+v (err %v)", after, err)
	}
}
