// Package oauthhttp serves the authorization server's endpoints: its
// metadata (RFC 8414) and the protected resource's (RFC 9728) at their
// well-known paths, dynamic client registration (RFC 7591) and the token
// endpoint. The consent screen, where an owner approves, is the
// dashboard's. Errors are OAuth's JSON (RFC 6749 §5.2), not the API's
// envelope: OAuth clients read that.
package oauthhttp

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/oauth"
)

// The paths served, under the issuer.
const (
	ServerMetadataPath   = "/.well-known/oauth-authorization-server"
	ResourceMetadataPath = "/.well-known/oauth-protected-resource"
	RegisterPath         = "/oauth/register"
	TokenPath            = "/oauth/token"
	// ConsentPath is the dashboard's consent screen: the authorization
	// endpoint.
	ConsentPath = "/dashboard/connect"
)

// maxBody bounds a registration or token request.
const maxBody = 16 << 10

// Handler serves the endpoints.
type Handler struct {
	Service *oauth.Service
	// Issuer is the public URL of the stack (no trailing slash): the
	// issuer identifier and the base of every endpoint.
	Issuer string
	Logger *slog.Logger
}

// Paths are the exact paths the handler serves.
var Paths = []string{ServerMetadataPath, ResourceMetadataPath, RegisterPath, TokenPath}

// ServeHTTP routes the four endpoints.
func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Public clients may run in a browser: every endpoint answers any
	// origin, none reads a cookie.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var allowed string
	switch r.URL.Path {
	case ServerMetadataPath, ResourceMetadataPath:
		allowed = http.MethodGet
	case RegisterPath, TokenPath:
		allowed = http.MethodPost
	default:
		writeError(w, http.StatusNotFound, "invalid_request", "no such endpoint")
		return
	}
	if r.Method != allowed {
		w.Header().Set("Allow", allowed)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use "+allowed)
		return
	}
	switch r.URL.Path {
	case ServerMetadataPath:
		writeJSON(w, http.StatusOK, h.serverMetadata())
	case ResourceMetadataPath:
		writeJSON(w, http.StatusOK, h.resourceMetadata())
	case RegisterPath:
		h.register(w, r)
	case TokenPath:
		h.token(w, r)
	}
}

// ServerMetadata is RFC 8414's document.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
}

// ResourceMetadata is RFC 9728's document.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// grantableScopes are the scopes a connection may hold, as the metadata
// lists them: never a deliberate-only one.
func grantableScopes() []string {
	out := make([]string, 0, len(apikey.FullAccess))
	for _, s := range apikey.FullAccess {
		out = append(out, string(s))
	}
	return out
}

func (h Handler) serverMetadata() ServerMetadata {
	return ServerMetadata{
		Issuer: h.Issuer, AuthorizationEndpoint: h.Issuer + ConsentPath,
		TokenEndpoint: h.Issuer + TokenPath, RegistrationEndpoint: h.Issuer + RegisterPath,
		ScopesSupported: grantableScopes(), ResponseTypesSupported: []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"}, CodeChallengeMethodsSupported: []string{"S256"},
	}
}

func (h Handler) resourceMetadata() ResourceMetadata {
	return ResourceMetadata{
		Resource: h.Issuer, AuthorizationServers: []string{h.Issuer}, ScopesSupported: grantableScopes(),
		BearerMethodsSupported: []string{"header"}, ResourceName: "Sesame",
	}
}

// registration is RFC 7591's request; other metadata is ignored, as the
// RFC allows.
type registration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

type registered struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

func (h Handler) register(w http.ResponseWriter, r *http.Request) {
	var req registration
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata")
		return
	}
	// A scope asked at registration is checked as at authorization: a
	// deliberate-only one is refused here too.
	if _, err := oauth.ParseScope("scope", req.Scope); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", fail.MessageOf(err))
		return
	}
	c, err := h.Service.Register(r.Context(), oauth.Registration{
		ClientName: req.ClientName, RedirectURIs: req.RedirectURIs, GrantTypes: req.GrantTypes,
		ResponseTypes: req.ResponseTypes, TokenEndpointAuthMethod: req.TokenEndpointAuthMethod,
	})
	if err != nil {
		code := "invalid_client_metadata"
		if e, ok := fail.As(err); ok && e.Param == "redirect_uris" && e.Kind == fail.KindInvalid {
			code = "invalid_redirect_uri"
		}
		h.writeFail(w, r, err, code)
		return
	}
	writeJSON(w, http.StatusCreated, registered{
		ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientName: c.Name, RedirectURIs: c.RedirectURIs,
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none",
	})
}

type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

func (h Handler) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
		return
	}
	if r.Header.Get("Authorization") != "" {
		writeError(w, http.StatusUnauthorized, "invalid_client", "clients are public: send client_id in the body, no credentials")
		return
	}
	f := r.PostForm
	var (
		t   oauth.Tokens
		err error
	)
	switch f.Get("grant_type") {
	case "authorization_code":
		t, err = h.Service.Exchange(r.Context(), f.Get("client_id"), f.Get("code"), f.Get("redirect_uri"), f.Get("code_verifier"), f.Get("scope"))
	case "refresh_token":
		t, err = h.Service.Refresh(r.Context(), f.Get("client_id"), f.Get("refresh_token"), f.Get("scope"))
	case "":
		writeError(w, http.StatusBadRequest, "invalid_request", "grant_type is required")
		return
	default:
		writeError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
		return
	}
	if err != nil {
		h.writeFail(w, r, err, tokenErrorCode(err))
		return
	}
	scopes := make([]string, len(t.Scopes))
	for i, s := range t.Scopes {
		scopes[i] = string(s)
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, tokenResponse{
		AccessToken: t.Access, TokenType: "Bearer", ExpiresIn: int64(t.ExpiresIn / time.Second),
		RefreshToken: t.Refresh, Scope: strings.Join(scopes, " "),
	})
}

// tokenErrorCode is RFC 6749 §5.2's code of a token endpoint failure.
func tokenErrorCode(err error) string {
	e, ok := fail.As(err)
	switch {
	case !ok:
		return "invalid_request"
	case e.Reason == fail.InsufficientScope:
		return "invalid_scope"
	case e.Reason == oauth.InvalidGrant:
		return "invalid_grant"
	}
	return "invalid_request"
}

// writeFail writes err: a dependency fault as 503 with Retry-After, an
// internal one as a bare 500 (logged), any other as code.
func (h Handler) writeFail(w http.ResponseWriter, r *http.Request, err error, code string) {
	e, ok := fail.As(err)
	switch {
	case !ok || e.Kind == fail.KindInternal:
		h.logger().ErrorContext(r.Context(), "oauth request failed", slog.Any("err", err))
		writeError(w, http.StatusInternalServerError, "server_error", "internal error")
	case e.Kind == fail.KindUnavailable:
		if e.Err != nil {
			h.logger().ErrorContext(r.Context(), "oauth store failed", slog.Any("err", e.Err))
		}
		secs := int((e.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", e.Message)
	default:
		writeError(w, http.StatusBadRequest, code, e.Message)
	}
}

func (h Handler) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.Default()
	}
	return h.Logger
}

// Error is OAuth's error body.
type Error struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, Error{Error: code, Description: desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away: nothing to tell it
}
