package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Authenticator checks a well-formed key and counts the request against the
// key's rate limit, in one round trip to the key store. It returns
// apikey.ErrUnknownKey, an *apikey.RateLimitedError, or a transient fault.
type Authenticator interface {
	Authenticate(ctx context.Context, key string, env apikey.Environment) (apikey.Principal, error)
}

// authRetryAfter is what a client is told to wait when the key store fails.
const authRetryAfter = 2 * time.Second

type principalKey struct{}

// PrincipalFrom returns the authenticated caller of the request.
func PrincipalFrom(ctx context.Context) apikey.Principal {
	p, _ := ctx.Value(principalKey{}).(apikey.Principal)
	return p
}

// WithPrincipal returns ctx carrying p (for handler tests).
func WithPrincipal(ctx context.Context, p apikey.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func (s *Server) authenticate(r *http.Request) (apikey.Principal, error) {
	unauthorized := fail.Errorf(fail.KindUnauthorized, "", "", "missing or invalid API key; send Authorization: Bearer <API_KEY>")
	auth := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return apikey.Principal{}, unauthorized
	}
	key = strings.TrimSpace(key)
	env, ok := apikey.Parse(key)
	if !ok && apikey.IsAccessToken(key) {
		// A connection's access token is checked as a live key is: the
		// store keeps it as one, with an expiry.
		env, ok = apikey.Live, true
	}
	if !ok {
		return apikey.Principal{}, unauthorized
	}
	p, err := s.Auth.Authenticate(r.Context(), key, env)
	var limited *apikey.RateLimitedError
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, apikey.ErrUnknownKey):
		return apikey.Principal{}, unauthorized
	case errors.As(err, &limited):
		e := fail.Errorf(fail.KindTooMany, "", "", "rate limit of %d requests per minute exceeded; retry after the Retry-After delay", apikey.RequestsPerMinute)
		e.RetryAfter = limited.RetryAfter
		return apikey.Principal{}, e
	default:
		// Never 401 for a key we could not check: the client would drop a good key.
		s.logger().ErrorContext(r.Context(), "api key check failed", slog.String("request_id", RequestID(r.Context())), slog.Any("err", err))
		return apikey.Principal{}, fail.Unavailable(authRetryAfter, "the API key could not be checked right now; retry shortly with the same Idempotency-Key if you sent one")
	}
}

// ResourceMetadataPath is where the protected resource metadata (RFC 9728)
// is served, on the stack's public origin.
const ResourceMetadataPath = "/.well-known/oauth-protected-resource"

// Challenge is the WWW-Authenticate value of a 401 (RFC 6750 §3, RFC 9728
// §5.1): it points an OAuth client at the resource metadata, on the origin
// the request came to.
func Challenge(r *http.Request) string {
	scheme := "https"
	if r.TLS == nil && !strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") && isLoopbackHost(r.Host) {
		scheme = "http"
	}
	return `Bearer realm="sesame", resource_metadata="` + scheme + "://" + r.Host + ResourceMetadataPath + `"`
}

func isLoopbackHost(hostport string) bool {
	host := hostport
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.HasSuffix(hostport, "]") {
		host = hostport[:i]
	}
	host = strings.Trim(host, "[]")
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}
