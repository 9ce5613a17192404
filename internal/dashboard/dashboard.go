// Package dashboard is the owner's web dashboard: server-rendered HTML
// pages under /dashboard, signed in by an emailed link (internal/signin).
// It is an adapter like the console: it parses forms, calls the entity
// services gathered in internal/owner and renders html/template pages;
// the rules are the services'. A screen is one handler file and one template
// (screens.go lists them).
package dashboard

import (
	"embed"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/metrics"
	"github.com/sesame-mail/sesame/internal/oauth"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/signin"
)

// Root is the path every dashboard route is served under, as the server
// sees it (API Gateway passes the path without its stage).
const Root = "/dashboard"

//go:embed templates/*.html static/*
var assets embed.FS

// Config is what the dashboard is built from besides its services.
type Config struct {
	// PublicURL is where owners reach the stack (SESAME_PUBLIC_URL): links
	// and the expected Origin are built on it.
	PublicURL string
	// Secret signs session cookies and CSRF tokens.
	Secret []byte
	// LogLinks also writes each sign-in link to the log: the local stack
	// only, whose mail goes to an emulator.
	LogLinks bool
	Logger   *slog.Logger
}

// Services are what the dashboard calls.
type Services struct {
	Owner     *owner.Service
	SignIn    *signin.Service
	Metrics   metrics.Store
	Templates *emailtemplate.Service
	// OAuth is the authorization server whose consent screen and
	// connections the dashboard shows.
	OAuth *oauth.Service
}

// App serves the dashboard.
type App struct {
	svc    Services
	signer signin.Signer
	// base prefixes every link: the public URL's path (an API stage) and
	// Root. origin is the public URL's scheme and host.
	base, origin string
	// secure marks the cookie Secure: everywhere but on the local http
	// stack.
	secure   bool
	logLinks bool
	logger   *slog.Logger
	pages    pages
	mux      *http.ServeMux
}

// New builds the dashboard over svc. svc.SignIn's LinkURL is set to the
// dashboard's link page.
func New(cfg Config, svc Services) (*App, error) {
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("dashboard: public URL %q is not an absolute URL", cfg.PublicURL)
	}
	if len(cfg.Secret) == 0 {
		return nil, fmt.Errorf("dashboard: no secret to sign sessions with")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	a := &App{
		svc: svc, signer: signin.Signer{Secret: cfg.Secret},
		base:     strings.TrimSuffix(u.Path, "/") + Root,
		origin:   u.Scheme + "://" + u.Host,
		secure:   !(u.Scheme == "http" && isLoopback(u.Hostname())),
		logLinks: cfg.LogLinks, logger: logger, pages: pages,
	}
	signInBase := a.origin + a.base + "/sign-in/"
	a.svc.SignIn.LinkURL = func(token string) string { return signInBase + token }
	a.mux = a.routes()
	return a, nil
}

func isLoopback(host string) bool { return host == "127.0.0.1" || host == "localhost" || host == "::1" }

// ServeHTTP serves every dashboard route, with the security headers.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if strings.HasPrefix(r.URL.Path, Root+"/preview/") {
		// Only a page of the dashboard frames a preview (sandboxed);
		// servePreview lets remote images in when asked.
		h.Set("Content-Security-Policy", previewCSP(false))
		h.Set("X-Frame-Options", "SAMEORIGIN")
	} else {
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Frame-Options", "DENY")
	}
	a.mux.ServeHTTP(w, r)
}

// pageCSP: pages load only the dashboard's own files and run no inline
// script (a preview's policy is previewCSP).
const pageCSP = "default-src 'self'; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"
