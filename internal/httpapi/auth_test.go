package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

func TestAuthentication(t *testing.T) {
	live := apikey.Generate(apikey.Live)
	test := apikey.Generate(apikey.Test)
	secret := live[len("ps_live_"):]

	cases := map[string]struct {
		authz string // Authorization header; not sent when empty
		// fakeErr is what the key store answers; the store must not be
		// asked at all when wantCalled is false.
		fakeErr    error
		wantCalled bool
		wantKey    string
		wantEnv    apikey.Environment
		wantStatus int
		wantCode   string // "" for success
		retryAfter string // "" absent, "*" a positive whole number, else exact
	}{
		"no Authorization header": {wantStatus: 401, wantCode: "unauthorized"},
		"Bearer with empty key":   {authz: "Bearer ", wantStatus: 401, wantCode: "unauthorized"},
		"Bearer alone":            {authz: "Bearer", wantStatus: 401, wantCode: "unauthorized"},
		"Bearer with spaces only": {authz: "Bearer    ", wantStatus: 401, wantCode: "unauthorized"},
		"Basic scheme":            {authz: "Basic xyz", wantStatus: 401, wantCode: "unauthorized"},
		"Basic scheme with a key": {authz: "Basic " + live, wantStatus: 401, wantCode: "unauthorized"},
		"key without scheme":      {authz: live, wantStatus: 401, wantCode: "unauthorized"},
		"unknown prefix sk_live_": {authz: "Bearer sk_live_" + secret, wantStatus: 401, wantCode: "unauthorized"},
		"unknown prefix ps_prod_": {authz: "Bearer ps_prod_" + secret, wantStatus: 401, wantCode: "unauthorized"},
		"secret too short":        {authz: "Bearer " + live[:len(live)-1], wantStatus: 401, wantCode: "unauthorized"},
		"secret too long":         {authz: "Bearer " + live + "x", wantStatus: 401, wantCode: "unauthorized"},
		"secret not base62":       {authz: "Bearer " + live[:len(live)-1] + "-", wantStatus: 401, wantCode: "unauthorized"},
		"two keys":                {authz: "Bearer " + live + " " + test, wantStatus: 401, wantCode: "unauthorized"},
		"prefix only":             {authz: "Bearer ps_live_", wantStatus: 401, wantCode: "unauthorized"},
		"unknown, revoked or regenerated key": {
			authz: "Bearer " + live, fakeErr: apikey.ErrUnknownKey, wantCalled: true, wantKey: live, wantEnv: apikey.Live,
			wantStatus: 401, wantCode: "unauthorized",
		},
		"unknown key wrapped by the store": {
			authz: "Bearer " + test, fakeErr: fmt.Errorf("authenticate: %w", apikey.ErrUnknownKey), wantCalled: true, wantKey: test, wantEnv: apikey.Test,
			wantStatus: 401, wantCode: "unauthorized",
		},
		"rate limited": {
			authz: "Bearer " + live, fakeErr: &apikey.RateLimitedError{RetryAfter: 1500 * time.Millisecond}, wantCalled: true, wantKey: live, wantEnv: apikey.Live,
			wantStatus: 429, wantCode: "rate_limited", retryAfter: "2",
		},
		"rate limited for under a second rounds up": {
			authz: "Bearer " + live, fakeErr: &apikey.RateLimitedError{RetryAfter: 10 * time.Millisecond}, wantCalled: true, wantKey: live, wantEnv: apikey.Live,
			wantStatus: 429, wantCode: "rate_limited", retryAfter: "1",
		},
		"rate limited for whole seconds": {
			authz: "Bearer " + live, fakeErr: &apikey.RateLimitedError{RetryAfter: 42 * time.Second}, wantCalled: true, wantKey: live, wantEnv: apikey.Live,
			wantStatus: 429, wantCode: "rate_limited", retryAfter: "42",
		},
		"key store down": {
			authz: "Bearer " + live, fakeErr: errors.New(storeFault), wantCalled: true, wantKey: live, wantEnv: apikey.Live,
			wantStatus: 503, wantCode: "service_unavailable", retryAfter: "*",
		},
		"key store timed out": {
			authz: "Bearer " + live, fakeErr: context.DeadlineExceeded, wantCalled: true, wantKey: live, wantEnv: apikey.Live,
			wantStatus: 503, wantCode: "service_unavailable", retryAfter: "*",
		},
		"key store fault wrapping a timeout": {
			authz: "Bearer " + test, fakeErr: fmt.Errorf("authenticate: %w", context.DeadlineExceeded), wantCalled: true, wantKey: test, wantEnv: apikey.Test,
			wantStatus: 503, wantCode: "service_unavailable", retryAfter: "*",
		},
		"live key accepted": {
			authz: "Bearer " + live, wantCalled: true, wantKey: live, wantEnv: apikey.Live, wantStatus: 200,
		},
		"test key accepted": {
			authz: "Bearer " + test, wantCalled: true, wantKey: test, wantEnv: apikey.Test, wantStatus: 200,
		},
		"scheme is case-insensitive": {
			authz: "bearer " + live, wantCalled: true, wantKey: live, wantEnv: apikey.Live, wantStatus: 200,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			called := false
			auth := &fakeAuth{AuthenticateFn: func(_ context.Context, key string, env apikey.Environment) (apikey.Principal, error) {
				called = true
				if !tc.wantCalled {
					t.Errorf("key store asked about malformed Authorization %q", tc.authz)
				}
				if key != tc.wantKey || env != tc.wantEnv {
					t.Errorf("key store asked about (%q, %q), want (%q, %q)", key, env, tc.wantKey, tc.wantEnv)
				}
				if tc.fakeErr != nil {
					return apikey.Principal{}, tc.fakeErr
				}
				return apikey.Principal{WorkspaceID: "ws_1", KeyID: "key_1", Environment: env}, nil
			}}
			reached := false
			h := (&httpapi.Server{Auth: auth, Logger: discardLogger()}).Handler(httpapi.Route{
				Route: getThing,
				Handler: func(w http.ResponseWriter, r *http.Request) error {
					reached = true
					p := httpapi.PrincipalFrom(r.Context())
					httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[thing]{Data: thing{ID: r.PathValue("id"), WorkspaceID: p.WorkspaceID}})
					return nil
				},
			})

			rec := serve(h, request{target: "/api/v1/things/th_1", authz: tc.authz})

			if called != tc.wantCalled {
				t.Errorf("key store called = %v, want %v", called, tc.wantCalled)
			}
			if reached != (tc.wantCode == "") {
				t.Errorf("handler reached = %v with status %d", reached, rec.Code)
			}
			body := rec.Body.String()
			if tc.wantCode == "" {
				if rec.Code != tc.wantStatus {
					t.Fatalf("status = %d, want %d; body %s", rec.Code, tc.wantStatus, body)
				}
				if got := decodeData[thing](t, rec); got.ID != "th_1" || got.WorkspaceID != "ws_1" {
					t.Errorf("handler saw %+v, want the principal of the key", got)
				}
				return
			}
			e := checkError(t, rec, tc.wantStatus, tc.wantCode, "")
			if strings.Contains(body, secret[:20]) || strings.Contains(body, test[len("ps_test_"):][:20]) {
				t.Errorf("body echoes the key: %s", body)
			}
			if tc.fakeErr != nil && tc.wantStatus == 503 && strings.Contains(body, tc.fakeErr.Error()) {
				t.Errorf("body leaks the internal error %q: %s", tc.fakeErr, body)
			}
			if tc.wantStatus == 503 && !strings.Contains(strings.ToLower(e.Message), "retry") {
				t.Errorf("503 message %q does not tell the client to retry", e.Message)
			}
			got := rec.Header().Get("Retry-After")
			switch tc.retryAfter {
			case "":
				if got != "" {
					t.Errorf("Retry-After = %q, want none", got)
				}
			case "*":
				if n, err := strconv.Atoi(got); err != nil || n < 1 {
					t.Errorf("Retry-After = %q, want a positive number of seconds", got)
				}
			default:
				if got != tc.retryAfter {
					t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
				}
			}
		})
	}
}

func TestScopes(t *testing.T) {
	cases := map[string]struct {
		scopes     []apikey.Scope // nil: a legacy key created before scopes
		route      apikey.Scope
		wantStatus int
	}{
		"scoped key lacking the scope":               {scopes: []apikey.Scope{apikey.EmailsRead}, route: apikey.EmailSend, wantStatus: 403},
		"scoped key holding the scope":               {scopes: []apikey.Scope{apikey.EmailsRead, apikey.EmailSend}, route: apikey.EmailSend, wantStatus: 200},
		"send key cannot send bulk":                  {scopes: []apikey.Scope{apikey.EmailSend}, route: apikey.EmailSendBulk, wantStatus: 403},
		"key minted with email:send_bulk":            {scopes: []apikey.Scope{apikey.EmailSendBulk}, route: apikey.EmailSendBulk, wantStatus: 200},
		"key minted with segments:write":             {scopes: []apikey.Scope{apikey.SegmentsWrite}, route: apikey.SegmentsWrite, wantStatus: 200},
		"bulk scope does not grant send":             {scopes: []apikey.Scope{apikey.EmailSendBulk}, route: apikey.EmailSend, wantStatus: 403},
		"scoped key with no scopes":                  {scopes: []apikey.Scope{}, route: apikey.EmailsRead, wantStatus: 403},
		"legacy key, email:send":                     {route: apikey.EmailSend, wantStatus: 200},
		"legacy key, emails:read":                    {route: apikey.EmailsRead, wantStatus: 200},
		"legacy key, campaigns:cancel":               {route: apikey.CampaignsCancel, wantStatus: 200},
		"legacy key, automations:trigger":            {route: apikey.AutomationsTrigger, wantStatus: 200},
		"legacy key refused email:send_bulk":         {route: apikey.EmailSendBulk, wantStatus: 403},
		"legacy key refused segments:write":          {route: apikey.SegmentsWrite, wantStatus: 403},
		"legacy key refused a route without a scope": {route: "", wantStatus: 403},
		"legacy key refused an unknown scope":        {route: "emails:*", wantStatus: 403},
		"read key refused suppressions:write":        {scopes: []apikey.Scope{apikey.EmailsRead, apikey.SuppressionsRead}, route: apikey.SuppressionsWrite, wantStatus: 403},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			key := apikey.Generate(apikey.Live)
			auth := &fakeAuth{AuthenticateFn: func(context.Context, string, apikey.Environment) (apikey.Principal, error) {
				return apikey.Principal{WorkspaceID: "ws_1", KeyID: "key_1", Environment: apikey.Live, Scopes: tc.scopes}, nil
			}}
			reached := false
			h := (&httpapi.Server{Auth: auth, Logger: discardLogger()}).Handler(httpapi.Route{
				Route: routes.Route{Method: "POST", Path: "/api/v1/scoped", Scope: tc.route},
				Handler: func(w http.ResponseWriter, r *http.Request) error {
					reached = true
					if got := httpapi.PrincipalFrom(r.Context()).KeyID; got != "key_1" {
						t.Errorf("principal in handler has key %q", got)
					}
					w.WriteHeader(http.StatusNoContent)
					return nil
				},
			})

			rec := serve(h, request{method: "POST", target: "/api/v1/scoped", key: key})

			if tc.wantStatus == 200 {
				if !reached || rec.Code != http.StatusNoContent {
					t.Fatalf("status = %d, handler reached = %v; want the handler to serve; body %s", rec.Code, reached, rec.Body)
				}
				return
			}
			if reached {
				t.Error("handler reached without the scope")
			}
			e := checkError(t, rec, 403, "insufficient_scope", "")
			if !strings.Contains(e.Message, " "+string(tc.route)+" ") {
				t.Errorf("message %q does not name the missing scope %s", e.Message, tc.route)
			}
		})
	}
}
