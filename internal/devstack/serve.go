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
)

// Stack is the running local API and its queue pollers.
type Stack struct {
	Deps    api.Deps
	Pollers []*queue.Poller
	// DevRoutes are served beside the API only here (never deployed).
	DevRoutes []httpapi.Route
	Logger    *slog.Logger
}

// Serve serves every route on ln and runs the pollers until ctx ends.
func (s *Stack) Serve(ctx context.Context, ln net.Listener) error {
	core := &httpapi.Server{Auth: s.Deps.Repos.Keys, Logger: s.Deps.Logger}
	h := core.Handler(append(api.Routes(s.Deps), s.DevRoutes...)...)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
		return srv.Shutdown(shutdown)
	})
	for _, p := range s.Pollers {
		g.Go(func() error { return p.Run(ctx) })
	}
	return g.Wait()
}
