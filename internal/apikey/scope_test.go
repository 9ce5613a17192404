package apikey_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// The scope table of the spec, in its order, then Sesame's own.
var specScopes = []apikey.Scope{
	"email:send", "email:send_bulk", "contacts:read", "contacts:write",
	"emails:read", "domains:read", "events:read", "suppressions:read",
	"suppressions:write", "deliverability:check", "metrics:read",
	"campaigns:read", "campaigns:cancel", "segments:write",
	"automations:trigger",
	"templates:read", "templates:write", "segments:read", "campaigns:suggest",
}

// The spec's scopes less the deliberate-only email:send_bulk and segments:write.
var fullAccess = []apikey.Scope{
	"email:send", "contacts:read", "contacts:write", "emails:read",
	"domains:read", "events:read", "suppressions:read", "suppressions:write",
	"deliverability:check", "metrics:read", "campaigns:read",
	"campaigns:cancel", "automations:trigger", "templates:read", "templates:write",
	"segments:read",
	"campaigns:suggest",
}

func TestAllScopesMatchSpec(t *testing.T) {
	if !slices.Equal(apikey.AllScopes, specScopes) {
		t.Errorf("AllScopes = %v, want %v", apikey.AllScopes, specScopes)
	}
}

func TestDeliberate(t *testing.T) {
	for _, s := range specScopes {
		want := s == "email:send_bulk" || s == "segments:write"
		if got := s.Deliberate(); got != want {
			t.Errorf("%s.Deliberate() = %v, want %v", s, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	readScopes := []apikey.Scope{
		"emails:read", "contacts:read", "domains:read", "events:read",
		"suppressions:read", "metrics:read", "campaigns:read", "templates:read",
		"segments:read",
	}
	cases := map[string]struct {
		preset  apikey.Preset
		custom  []string
		want    []apikey.Scope
		wantErr string // a substring of the error; "" for success
	}{
		"default is full access": {preset: "", want: fullAccess},
		"full":                   {preset: apikey.PresetFull, want: fullAccess},
		"send":                   {preset: apikey.PresetSend, want: []apikey.Scope{"email:send"}},
		"read":                   {preset: apikey.PresetRead, want: readScopes},
		"custom, one scope":      {preset: apikey.PresetCustom, custom: []string{"emails:read"}, want: []apikey.Scope{"emails:read"}},
		"custom with email:send_bulk": {
			preset: apikey.PresetCustom, custom: []string{"email:send", "email:send_bulk"},
			want: []apikey.Scope{"email:send", "email:send_bulk"},
		},
		"custom with segments:write": {
			preset: apikey.PresetCustom, custom: []string{"segments:write"}, want: []apikey.Scope{"segments:write"},
		},
		"custom, every scope": {preset: apikey.PresetCustom, custom: scopeStrings(specScopes), want: specScopes},
		"custom trims and drops repeats": {
			preset: apikey.PresetCustom, custom: []string{" emails:read", "emails:read ", "metrics:read"},
			want: []apikey.Scope{"emails:read", "metrics:read"},
		},
		"custom without scopes":       {preset: apikey.PresetCustom, wantErr: "at least one scope"},
		"custom with an empty list":   {preset: apikey.PresetCustom, custom: []string{}, wantErr: "at least one scope"},
		"custom with an unknown":      {preset: apikey.PresetCustom, custom: []string{"emails:read", "emails:write"}, wantErr: `"emails:write"`},
		"custom with an empty scope":  {preset: apikey.PresetCustom, custom: []string{""}, wantErr: "unknown scope"},
		"custom with a scope's case":  {preset: apikey.PresetCustom, custom: []string{"Email:Send"}, wantErr: "unknown scope"},
		"custom with a wildcard":      {preset: apikey.PresetCustom, custom: []string{"*"}, wantErr: "unknown scope"},
		"unknown preset":              {preset: "admin", wantErr: "unknown preset"},
		"preset in capitals":          {preset: "FULL", wantErr: "unknown preset"},
		"full with scopes":            {preset: apikey.PresetFull, custom: []string{"email:send_bulk"}, wantErr: "custom preset"},
		"default preset with scopes":  {preset: "", custom: []string{"emails:read"}, wantErr: "custom preset"},
		"send with scopes":            {preset: apikey.PresetSend, custom: []string{"email:send"}, wantErr: "custom preset"},
		"read with scopes":            {preset: apikey.PresetRead, custom: []string{"emails:read"}, wantErr: "custom preset"},
		"unknown preset, with scopes": {preset: "admin", custom: []string{"emails:read"}, wantErr: "unknown preset"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := apikey.Resolve(tc.preset, tc.custom)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("Resolve = %v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				if got != nil {
					t.Errorf("Resolve returned scopes %v with its error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if !slices.Equal(sorted(got), sorted(tc.want)) {
				t.Errorf("Resolve = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPresetsGrantNoDeliberateScope(t *testing.T) {
	for _, p := range []apikey.Preset{"", apikey.PresetFull, apikey.PresetSend, apikey.PresetRead} {
		got, err := apikey.Resolve(p, nil)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", p, err)
		}
		for _, s := range got {
			if s.Deliberate() {
				t.Errorf("preset %q grants deliberate-only %s", p, s)
			}
		}
	}
	got, _ := apikey.Resolve(apikey.PresetRead, nil)
	for _, s := range got {
		if !strings.HasSuffix(string(s), ":read") {
			t.Errorf("read preset grants %s", s)
		}
	}
}

func TestResolveReturnsACopy(t *testing.T) {
	first, err := apikey.Resolve(apikey.PresetFull, nil)
	if err != nil {
		t.Fatal(err)
	}
	first[0] = apikey.EmailSendBulk
	again, _ := apikey.Resolve(apikey.PresetFull, nil)
	if slices.Contains(again, apikey.EmailSendBulk) {
		t.Error("editing a resolved scope list changed the full preset")
	}
	if slices.Contains(apikey.FullAccess, apikey.EmailSendBulk) {
		t.Error("editing a resolved scope list changed FullAccess")
	}
}

func TestPrincipalHas(t *testing.T) {
	cases := map[string]struct {
		scopes []apikey.Scope
		want   func(apikey.Scope) bool
	}{
		"legacy key (nil scopes) has full access": {
			scopes: nil,
			want:   func(s apikey.Scope) bool { return slices.Contains(fullAccess, s) },
		},
		"scoped key with no scopes has none": {
			scopes: []apikey.Scope{},
			want:   func(apikey.Scope) bool { return false },
		},
		"send key": {
			scopes: []apikey.Scope{"email:send"},
			want:   func(s apikey.Scope) bool { return s == "email:send" },
		},
		"key minted with the deliberate scopes": {
			scopes: []apikey.Scope{"email:send_bulk", "segments:write"},
			want:   func(s apikey.Scope) bool { return s.Deliberate() },
		},
		"full preset key": {
			scopes: fullAccess,
			want:   func(s apikey.Scope) bool { return !s.Deliberate() },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := apikey.Principal{WorkspaceID: "ws_1", Scopes: tc.scopes}
			for _, s := range specScopes {
				if got := p.Has(s); got != tc.want(s) {
					t.Errorf("Has(%s) = %v, want %v", s, got, tc.want(s))
				}
			}
			if p.Has("") || p.Has("emails:*") {
				t.Error("Has grants a scope that is not in the spec")
			}
		})
	}
}

func scopeStrings(ss []apikey.Scope) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

func sorted(ss []apikey.Scope) []apikey.Scope {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}
