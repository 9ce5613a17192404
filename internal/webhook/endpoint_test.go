package webhook_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

func TestValidateURL(t *testing.T) {
	cases := map[string]struct {
		url      string
		insecure bool
		wantErr  string // "" when valid
	}{
		"https":                         {url: "https://hooks.example.com/sesame?token=abc"},
		"https with port":               {url: "https://hooks.example.com:8443/in"},
		"public IPv4 literal":           {url: "https://93.184.215.14/in"},
		"public IPv6 literal":           {url: "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/in"},
		"http refused":                  {url: "http://hooks.example.com/in", wantErr: "must use https"},
		"http with the flag":            {url: "http://hooks.example.com/in", insecure: true},
		"loopback name with the flag":   {url: "http://localhost:9000/in", insecure: true},
		"loopback IP with the flag":     {url: "http://127.0.0.1:9000/in", insecure: true},
		"loopback name refused":         {url: "https://localhost/in", wantErr: "loopback"},
		"loopback subdomain refused":    {url: "https://app.localhost/in", wantErr: "loopback"},
		"loopback IP refused":           {url: "https://127.0.0.1/in", wantErr: "not publicly reachable"},
		"metadata address":              {url: "http://169.254.169.254/", wantErr: "must use https"},
		"metadata address with flag":    {url: "http://169.254.169.254/", insecure: true, wantErr: "not publicly reachable"},
		"metadata address over https":   {url: "https://169.254.169.254/latest/meta-data", wantErr: "not publicly reachable"},
		"private network":               {url: "https://10.0.0.5/in", insecure: true, wantErr: "not publicly reachable"},
		"CGNAT":                         {url: "https://100.64.0.1/in", wantErr: "not publicly reachable"},
		"IPv4-mapped IPv6 metadata":     {url: "https://[::ffff:169.254.169.254]/", insecure: true, wantErr: "not publicly reachable"},
		"IPv6 loopback":                 {url: "https://[::1]/", wantErr: "not publicly reachable"},
		"IPv6 unique local":             {url: "https://[fd00::1]/", wantErr: "not publicly reachable"},
		"IPv6 zone":                     {url: "https://[fe80::1%25eth0]/", wantErr: "zone"},
		"unspecified address":           {url: "https://0.0.0.0/", wantErr: "not publicly reachable"},
		"ftp":                           {url: "ftp://x", wantErr: "absolute https URL"},
		"no host":                       {url: "https://", wantErr: "no host"},
		"no host, path only":            {url: "https:///in", wantErr: "no host"},
		"relative":                      {url: "/in", wantErr: "absolute https URL"},
		"opaque":                        {url: "https:hooks.example.com", wantErr: "no host"},
		"userinfo":                      {url: "https://user:pw@hooks.example.com/", wantErr: "user name or password"},
		"port zero":                     {url: "https://hooks.example.com:0/", wantErr: "invalid port"},
		"port too large":                {url: "https://hooks.example.com:70000/", wantErr: "invalid port"},
		"not a URL":                     {url: "https://hooks example.com/", wantErr: "not a URL"},
		"too long":                      {url: "https://hooks.example.com/" + strings.Repeat("a", 2048), wantErr: "longer than"},
		"javascript":                    {url: "javascript:alert(1)", wantErr: "absolute https URL"},
		"uppercase scheme is canonical": {url: "HTTPS://hooks.example.com/"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := webhook.ValidateURL(tc.url, tc.insecure)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidateURL(%q) = %v, want valid", tc.url, err)
				}
				if u.Scheme != "https" && u.Scheme != "http" {
					t.Errorf("scheme = %q", u.Scheme)
				}
				return
			}
			if !errors.Is(err, webhook.ErrInvalidURL) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ValidateURL(%q) = %v, want ErrInvalidURL saying %q", tc.url, err, tc.wantErr)
			}
		})
	}
}

func TestParseEventTypes(t *testing.T) {
	cases := map[string]struct {
		in      []string
		want    []event.Type
		wantErr bool
	}{
		"none means all":       {in: nil, want: nil},
		"empty entries":        {in: []string{"", " "}, want: nil},
		"one":                  {in: []string{"email.bounced"}, want: []event.Type{event.Bounced}},
		"spec order, once":     {in: []string{"email.clicked", " email.delivered", "email.clicked"}, want: []event.Type{event.Delivered, event.Clicked}},
		"unknown type":         {in: []string{"email.delivered", "email.sent"}, wantErr: true},
		"case matters":         {in: []string{"Email.Delivered"}, wantErr: true},
		"a feed-only spelling": {in: []string{"delivered"}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := webhook.ParseEventTypes(tc.in)
			if tc.wantErr {
				if !errors.Is(err, webhook.ErrUnknownEventType) {
					t.Errorf("err = %v, want ErrUnknownEventType", err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ParseEventTypes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := webhook.NewSecret(), webhook.NewSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	for _, s := range []string{a, b} {
		rest, ok := strings.CutPrefix(s, "whsec_")
		if !ok || len(rest) != 43 {
			t.Fatalf("secret %q: want whsec_ and 43 base64 characters", s)
		}
		if raw, err := base64.RawStdEncoding.DecodeString(rest); err != nil || len(raw) != 32 {
			t.Errorf("secret %q does not carry 32 bytes of std base64 without padding: %v", s, err)
		}
	}
}

func TestNewEndpoint(t *testing.T) {
	ws := uuid.NewString()
	ep, err := webhook.NewEndpoint(ws, "https://hooks.example.com/in", []string{"email.opened"}, false)
	if err != nil {
		t.Fatal(err)
	}
	id, err := uuid.Parse(ep.ID)
	if err != nil || id.Version() != 7 {
		t.Errorf("id %q is not a UUIDv7", ep.ID)
	}
	if ep.WorkspaceID != ws || !ep.Enabled || ep.CreatedAt.IsZero() || !strings.HasPrefix(ep.Secret, "whsec_") ||
		!slices.Equal(ep.Events, []event.Type{event.Opened}) {
		t.Errorf("endpoint = %+v", ep)
	}
	if !ep.Subscribed(event.Opened) || ep.Subscribed(event.Delivered) {
		t.Error("Subscribed does not follow the event list")
	}
	if all := (webhook.Endpoint{}); !all.Subscribed(event.Clicked) {
		t.Error("an endpoint without a list is not subscribed to everything")
	}
	raw, err := json.Marshal(ep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), ep.Secret) || strings.Contains(string(raw), "whsec_") {
		t.Errorf("the secret is in the endpoint's JSON: %s", raw)
	}
	if _, err := webhook.NewEndpoint(ws, "ftp://x", nil, false); !errors.Is(err, webhook.ErrInvalidURL) {
		t.Errorf("ftp URL: err = %v", err)
	}
	if _, err := webhook.NewEndpoint(ws, "https://hooks.example.com/", []string{"email.sent"}, false); !errors.Is(err, webhook.ErrUnknownEventType) {
		t.Errorf("unknown type: err = %v", err)
	}
}
