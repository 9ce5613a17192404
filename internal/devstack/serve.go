package devstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Stack is the running local API and its queue pollers.
type Stack struct {
	Deps    api.Deps
	Pollers []*queue.Poller
	// DevRoutes are served beside the API only here (never deployed).
	DevRoutes []httpapi.Route
	Logger    *slog.Logger
	// Ticks run each at its interval, as the deployed stack's schedules
	// invoke them (api.Ticks).
	Ticks map[routes.Scheduled]func(context.Context) error
	// Dashboard, when set, is served under routes.Dashboard.Prefix.
	Dashboard http.Handler
}

// Handler serves the API and dev routes, and the dashboard under its
// prefix.
func (s *Stack) Handler() http.Handler {
	core := &httpapi.Server{Auth: s.Deps.Repos.Keys, Logger: s.Deps.Logger}
	h := core.Handler(append(api.Routes(s.Deps), s.DevRoutes...)...)
	if s.Dashboard == nil {
		return h
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle(routes.Dashboard.Prefix, s.Dashboard)
	mux.Handle(routes.Dashboard.Prefix+"/", s.Dashboard)
	// The authorization server comes with the dashboard, its consent
	// screen.
	auth := api.NewAuthServer(s.Deps)
	mux.Handle(routes.AuthServer.Prefix+"/", auth)
	for _, p := range routes.AuthServer.Also {
		mux.Handle(p, auth)
	}
	mcp, err := api.NewMCP(s.Deps)
	if err != nil {
		mcp = errorHandler(err)
	}
	mux.Handle(routes.MCP.Prefix, mcp)
	return mux
}

// errorHandler answers every request with err: a part of the stack that
// could not be built says why.
func errorHandler(err error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	})
}

// Serve serves every route on ln and runs the pollers until ctx ends.
func (s *Stack) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// A connection a client dialed but never used counts as busy for
		// Shutdown until it is 5 s old: past the wait, close what is left.
		if err := srv.Shutdown(shutdown); errors.Is(err, context.DeadlineExceeded) {
			return srv.Close()
		} else if err != nil {
			return err
		}
		return nil
	})
	for _, p := range s.Pollers {
		g.Go(func() error { return p.Run(ctx) })
	}
	for sch, tick := range s.Ticks {
		g.Go(func() error { s.runTicks(ctx, sch, tick); return nil })
	}
	return g.Wait()
}

// runTicks calls tick every sch.Every until ctx ends; a failed tick is
// logged and tried again at the next one, as a schedule would.
func (s *Stack) runTicks(ctx context.Context, sch routes.Scheduled, tick func(context.Context) error) {
	t := time.NewTicker(sch.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := tick(ctx); err != nil && s.Logger != nil {
				s.Logger.ErrorContext(ctx, "tick failed", slog.String("function", sch.Function), slog.Any("err", err))
			}
		}
	}
}
