package httpapi_test

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/httpapi"
)

//go:embed testdata/apigw-v1-get-thing.json
var apigwGetThing []byte

func TestResponsesCarryRequestIDAndEnvelope(t *testing.T) {
	cases := map[string]struct {
		req        request
		wantStatus int
		wantCode   string // "" for a success body
		wantParam  string // "" for a null param
		wantAllow  []string
		hidden     string // must not appear in the body
	}{
		"200 read": {
			req:        request{target: "/api/v1/things/th_1", key: keyLegacy},
			wantStatus: 200,
		},
		"201 create": {
			req:        request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: "application/json", body: `{"to":"a@example.com"}`},
			wantStatus: 201,
		},
		"400 invalid_field": {
			req:        request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: "application/json", body: `{"to":`},
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"400 missing_field": {
			req:        request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: "application/json", body: `{"count":1}`},
			wantStatus: 400, wantCode: "missing_field", wantParam: "to",
		},
		"400 bad limit": {
			req:        request{target: "/api/v1/things?limit=0", key: keyLegacy},
			wantStatus: 400, wantCode: "invalid_field", wantParam: "limit",
		},
		"401 no key": {
			req:        request{target: "/api/v1/things/th_1"},
			wantStatus: 401, wantCode: "unauthorized",
		},
		"401 revoked key": {
			req:        request{target: "/api/v1/things/th_1", key: keyRevoked},
			wantStatus: 401, wantCode: "unauthorized", hidden: keyRevoked,
		},
		"403 insufficient_scope": {
			req:        request{method: "POST", target: "/api/v1/things", key: keyRead, contentType: "application/json", body: `{"to":"a@example.com"}`},
			wantStatus: 403, wantCode: "insufficient_scope",
		},
		"404 unknown route": {
			req:        request{target: "/api/v1/nothing", key: keyLegacy},
			wantStatus: 404, wantCode: "not_found",
		},
		"404 unknown route without a key": {
			req:        request{method: "POST", target: "/api/v2/things"},
			wantStatus: 404, wantCode: "not_found",
		},
		"404 path below a route": {
			req:        request{target: "/api/v1/things/th_1/extra", key: keyLegacy},
			wantStatus: 404, wantCode: "not_found",
		},
		"404 root": {
			req:        request{target: "/"},
			wantStatus: 404, wantCode: "not_found",
		},
		"405 wrong method on a one-method path": {
			req:        request{method: "DELETE", target: "/api/v1/things/th_1", key: keyLegacy},
			wantStatus: 405, wantCode: "method_not_allowed", wantAllow: []string{"GET"},
		},
		"405 wrong method on a two-method path": {
			req:        request{method: "PUT", target: "/api/v1/things", key: keyLegacy},
			wantStatus: 405, wantCode: "method_not_allowed", wantAllow: []string{"GET", "POST"},
		},
		"429 rate limited": {
			req:        request{target: "/api/v1/things/th_1", key: keyLimited},
			wantStatus: 429, wantCode: "rate_limited",
		},
		"500 handler panic": {
			req:        request{target: "/api/v1/panic", key: keyLegacy},
			wantStatus: 500, wantCode: "internal_error", hidden: panicText,
		},
		"500 handler error": {
			req:        request{target: "/api/v1/fail", key: keyLegacy},
			wantStatus: 500, wantCode: "internal_error", hidden: handlerFault,
		},
		"503 key store down": {
			req:        request{target: "/api/v1/things/th_1", key: keyDown},
			wantStatus: 503, wantCode: "service_unavailable", hidden: storeFault,
		},
	}
	h := newHandler()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := serve(h, tc.req)

			id := rec.Header().Get("X-Request-Id")
			if _, err := uuid.Parse(id); err != nil {
				t.Errorf("X-Request-Id = %q, want a generated UUID: %v", id, err)
			}
			if tc.wantCode == "" {
				if rec.Code != tc.wantStatus {
					t.Fatalf("status = %d, want %d; body %s", rec.Code, tc.wantStatus, rec.Body)
				}
				var body map[string]json.RawMessage
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["data"] == nil || body["error"] != nil {
					t.Errorf("success body = %s, want {\"data\": …}", rec.Body)
				}
				return
			}
			if tc.hidden != "" && strings.Contains(rec.Body.String(), tc.hidden) {
				t.Errorf("body leaks %q: %s", tc.hidden, rec.Body)
			}
			checkError(t, rec, tc.wantStatus, tc.wantCode, tc.wantParam)
			allow := rec.Header().Get("Allow")
			if tc.wantAllow == nil {
				if allow != "" {
					t.Errorf("Allow = %q on a %d", allow, rec.Code)
				}
				return
			}
			for _, m := range tc.wantAllow {
				if !strings.Contains(allow, m) {
					t.Errorf("Allow = %q, want it to list %s", allow, m)
				}
			}
		})
	}
}

func TestRequestIDsAreDistinct(t *testing.T) {
	h := newHandler()
	seen := map[string]bool{}
	for range 20 {
		rec := serve(h, request{target: "/api/v1/things/th_1", key: keyLegacy})
		id := rec.Header().Get("X-Request-Id")
		if seen[id] {
			t.Fatalf("request id %q given twice", id)
		}
		seen[id] = true
	}
}

func TestRequestIDReachesHandlerAndIgnoresClientHeader(t *testing.T) {
	r := request{target: "/api/v1/things/th_1", key: keyLegacy}.build()
	r.Header.Set("X-Request-Id", "client-chosen")
	rec := httptest.NewRecorder()
	newHandler().ServeHTTP(rec, r)

	id := rec.Header().Get("X-Request-Id")
	if id == "" || id == "client-chosen" {
		t.Errorf("X-Request-Id = %q, want a server-made id", id)
	}
	if got := decodeData[thing](t, rec); got.RequestID != id {
		t.Errorf("RequestID in handler = %q, header = %q", got.RequestID, id)
	}
}

func TestPanicAfterWriteKeepsResponse(t *testing.T) {
	h := (&httpapi.Server{Auth: store(), Logger: discardLogger()}).Handler(httpapi.Route{
		Route: getThing,
		Handler: func(w http.ResponseWriter, r *http.Request) error {
			httpapi.WriteJSON(w, http.StatusAccepted, httpapi.Data[string]{Data: "partial"})
			panic(panicText)
		},
	})
	rec := serve(h, request{target: "/api/v1/things/th_1", key: keyLegacy})
	if rec.Code != http.StatusAccepted {
		t.Errorf("status = %d, want the 202 already sent", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "internal_error") || strings.Contains(rec.Body.String(), panicText) {
		t.Errorf("a second body was appended after the panic: %s", rec.Body)
	}
}

func TestAbortHandlerPanicPropagates(t *testing.T) {
	h := (&httpapi.Server{Auth: store(), Logger: discardLogger()}).Handler(httpapi.Route{
		Route: getThing,
		Handler: func(w http.ResponseWriter, r *http.Request) error {
			panic(http.ErrAbortHandler)
		},
	})
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler to reach net/http", v)
		}
	}()
	serve(h, request{target: "/api/v1/things/th_1", key: keyLegacy})
}

func loadGatewayEvent(t *testing.T) events.APIGatewayProxyRequest {
	t.Helper()
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(apigwGetThing, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestAPIGatewayRequestID(t *testing.T) {
	cases := map[string]struct {
		edit       func(*events.APIGatewayProxyRequest)
		wantStatus int
		wantCode   string // "" for success
		wantID     string // "" for a generated UUID
	}{
		"success": {wantStatus: 200, wantID: "gw-123"},
		"unknown key": {
			edit: func(ev *events.APIGatewayProxyRequest) {
				ev.MultiValueHeaders["Authorization"] = []string{"Bearer " + keyRevoked}
			},
			wantStatus: 401, wantCode: "unauthorized", wantID: "gw-123",
		},
		"unknown route": {
			edit:       func(ev *events.APIGatewayProxyRequest) { ev.Path = "/api/v1/nothing" },
			wantStatus: 404, wantCode: "not_found", wantID: "gw-123",
		},
		"wrong method": {
			edit:       func(ev *events.APIGatewayProxyRequest) { ev.HTTPMethod = "PATCH" },
			wantStatus: 405, wantCode: "method_not_allowed", wantID: "gw-123",
		},
		"panic": {
			edit:       func(ev *events.APIGatewayProxyRequest) { ev.Path = "/api/v1/panic" },
			wantStatus: 500, wantCode: "internal_error", wantID: "gw-123",
		},
		"gateway without a request id": {
			edit:       func(ev *events.APIGatewayProxyRequest) { ev.RequestContext.RequestID = "" },
			wantStatus: 200,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ev := loadGatewayEvent(t)
			if tc.edit != nil {
				tc.edit(&ev)
			}
			h := newHandler()

			resp, err := httpadapter.New(h).ProxyWithContext(t.Context(), ev)
			if err != nil {
				t.Fatal(err)
			}

			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tc.wantStatus, resp.Body)
			}
			id := http.Header(resp.MultiValueHeaders).Get("X-Request-Id")
			if tc.wantID != "" && id != tc.wantID {
				t.Errorf("X-Request-Id = %q, want the API Gateway id %q", id, tc.wantID)
			}
			if tc.wantID == "" {
				if _, err := uuid.Parse(id); err != nil {
					t.Errorf("X-Request-Id = %q, want a generated UUID", id)
				}
			}
			if tc.wantCode == "" {
				var got httpapi.Data[thing]
				if err := json.Unmarshal([]byte(resp.Body), &got); err != nil || got.Data != (thing{ID: "th_123", WorkspaceID: "ws_gw", RequestID: id}) {
					t.Errorf("body = %s, want th_123 of ws_gw seen under request id %q", resp.Body, id)
				}
				return
			}
			e := decodeEnvelope(t, []byte(resp.Body))
			if e.Code != tc.wantCode || e.RequestID != id {
				t.Errorf("error = %+v, want code %s and request_id %q", e, tc.wantCode, id)
			}
		})
	}
}

// logLine is one decoded JSON log record.
type logLine map[string]any

func readLog(t *testing.T, buf *bytes.Buffer) []logLine {
	t.Helper()
	var out []logLine
	for _, raw := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		var l logLine
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, raw)
		}
		out = append(out, l)
	}
	return out
}

func TestAccessLog(t *testing.T) {
	const bodySecret = "s3cr3t-body-token-9f2c"
	cases := map[string]struct {
		req           request
		wantStatus    int
		wantRoute     string
		wantWorkspace string
	}{
		"created": {
			req: request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: "application/json",
				body: `{"to":"a@example.com","tags":["` + bodySecret + `"]}`},
			wantStatus: 201, wantRoute: "POST /api/v1/things", wantWorkspace: "ws_legacy",
		},
		"read with path parameter": {
			req:        request{target: "/api/v1/things/th_1", key: keyRead},
			wantStatus: 200, wantRoute: "GET /api/v1/things/{id}", wantWorkspace: "ws_read",
		},
		"invalid body": {
			req: request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: "application/json",
				body: `{"to":"` + bodySecret + `", "count": "many"}`},
			wantStatus: 400, wantRoute: "POST /api/v1/things", wantWorkspace: "ws_legacy",
		},
		"missing scope": {
			req: request{method: "POST", target: "/api/v1/things", key: keyRead, contentType: "application/json",
				body: `{"to":"` + bodySecret + `"}`},
			wantStatus: 403, wantRoute: "POST /api/v1/things", wantWorkspace: "ws_read",
		},
		"revoked key": {
			req:        request{target: "/api/v1/things/th_1", key: keyRevoked},
			wantStatus: 401, wantRoute: "GET /api/v1/things/{id}",
		},
		"malformed key": {
			req:        request{target: "/api/v1/things/th_1", authz: "Bearer " + keyRevoked + "x"},
			wantStatus: 401, wantRoute: "GET /api/v1/things/{id}",
		},
		"rate limited": {
			req:        request{target: "/api/v1/things/th_1", key: keyLimited},
			wantStatus: 429, wantRoute: "GET /api/v1/things/{id}",
		},
		"key store down": {
			req:        request{target: "/api/v1/things/th_1", key: keyDown},
			wantStatus: 503, wantRoute: "GET /api/v1/things/{id}",
		},
		"panic": {
			req:        request{target: "/api/v1/panic", key: keyLegacy},
			wantStatus: 500, wantRoute: "GET /api/v1/panic", wantWorkspace: "ws_legacy",
		},
		"unknown route": {
			req:        request{method: "POST", target: "/api/v1/nothing", key: keyLegacy, contentType: "application/json", body: `{"to":"` + bodySecret + `"}`},
			wantStatus: 404,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			h := (&httpapi.Server{Auth: store(), Logger: logger}).Handler(testRoutes()...)

			rec := serve(h, tc.req)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tc.wantStatus, rec.Body)
			}

			out := buf.String()
			for _, key := range []string{keyLegacy, keyRead, keyRevoked, keyLimited, keyDown} {
				if strings.Contains(out, key[len("ps_live_"):]) {
					t.Errorf("log holds an API key: %s", out)
				}
			}
			if strings.Contains(out, bodySecret) {
				t.Errorf("log holds the request body: %s", out)
			}

			var access []logLine
			for _, l := range readLog(t, &buf) {
				if l["msg"] == "request" {
					access = append(access, l)
				}
			}
			if len(access) != 1 {
				t.Fatalf("%d access log lines, want 1: %s", len(access), out)
			}
			l := access[0]
			if got := l["request_id"]; got != rec.Header().Get("X-Request-Id") {
				t.Errorf("request_id = %v, want %q", got, rec.Header().Get("X-Request-Id"))
			}
			if got, ok := l["workspace_id"].(string); !ok || got != tc.wantWorkspace {
				t.Errorf("workspace_id = %#v, want %q", l["workspace_id"], tc.wantWorkspace)
			}
			route, _ := l["route"].(string)
			if tc.wantRoute != "" && route != tc.wantRoute {
				t.Errorf("route = %q, want %q", route, tc.wantRoute)
			}
			if tc.wantRoute == "" && (route == "" || strings.Contains(route, "/api/v1/nothing")) {
				t.Errorf("route = %q, want a fixed label for unmatched paths", route)
			}
			if got, ok := l["status"].(float64); !ok || int(got) != tc.wantStatus {
				t.Errorf("status = %#v, want %d", l["status"], tc.wantStatus)
			}
			if got, ok := l["latency_ms"].(float64); !ok || got < 0 {
				t.Errorf("latency_ms = %#v, want a non-negative number", l["latency_ms"])
			}
		})
	}
}

func TestInternalErrorsAreLoggedWithRequestID(t *testing.T) {
	cases := map[string]struct {
		req    request
		detail string
	}{
		"handler error":  {req: request{target: "/api/v1/fail", key: keyLegacy}, detail: handlerFault},
		"handler panic":  {req: request{target: "/api/v1/panic", key: keyLegacy}, detail: panicText},
		"key store down": {req: request{target: "/api/v1/things/th_1", key: keyDown}, detail: storeFault},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			h := (&httpapi.Server{Auth: store(), Logger: slog.New(slog.NewJSONHandler(&buf, nil))}).Handler(testRoutes()...)
			rec := serve(h, tc.req)
			id := rec.Header().Get("X-Request-Id")

			found := false
			for _, l := range readLog(t, &buf) {
				if l["level"] == "ERROR" && l["request_id"] == id {
					found = true
				}
			}
			if !found {
				t.Errorf("no ERROR line with request_id %q: %s", id, buf.String())
			}
			if !strings.Contains(buf.String(), tc.detail) {
				t.Errorf("log lacks the internal detail %q needed to debug: %s", tc.detail, buf.String())
			}
		})
	}
}
