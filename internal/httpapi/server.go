package httpapi

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/routes"
)

// HandlerFunc serves an authenticated request; a returned error is written
// as the error envelope (*fail.Error through the table, others as a 500).
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route is an API route and the handler that serves it.
type Route struct {
	routes.Route
	Handler HandlerFunc
}

// Server holds what every route needs around its handler.
type Server struct {
	Auth   Authenticator
	Logger *slog.Logger
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Handler serves routes: unknown paths answer 404 and known paths with
// another method 405, both in the error envelope, like every other error.
func (s *Server) Handler(routes ...Route) http.Handler {
	mux := http.NewServeMux()
	byPath := map[string][]Route{}
	var order []string
	for _, rt := range routes {
		if _, seen := byPath[rt.Path]; !seen {
			order = append(order, rt.Path)
		}
		byPath[rt.Path] = append(byPath[rt.Path], rt)
	}
	for _, path := range order {
		mux.Handle(path, s.methods(byPath[path]))
	}
	mux.Handle("/", s.errorHandler(fail.Errorf(fail.KindNotFound, "", "", "no such route")))
	return withRequestID(s.withLogAndRecover(mux))
}

func (s *Server) methods(routes []Route) http.Handler {
	allowed := make([]string, 0, len(routes))
	for _, rt := range routes {
		allowed = append(allowed, rt.Method)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range routes {
			if rt.Method == r.Method {
				s.serveRoute(w, r, rt)
				return
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		s.WriteError(w, r, fail.Errorf(fail.KindInvalid, wrongMethod, "", "method %s is not allowed here; use %s", r.Method, strings.Join(allowed, ", ")))
	})
}

func (s *Server) serveRoute(w http.ResponseWriter, r *http.Request, rt Route) {
	r = r.WithContext(routes.WithFunction(r.Context(), rt.Function))
	rec, _ := w.(*statusRecorder)
	if rec != nil {
		rec.route = rt.Method + " " + rt.Path
	}
	if rt.Public {
		s.servePublic(w, r, rt)
		return
	}
	p, authErr := s.authenticate(r)
	if authErr != nil {
		if fail.KindOf(authErr) == fail.KindUnauthorized {
			w.Header().Set("WWW-Authenticate", Challenge(r))
		}
		s.WriteError(w, r, authErr)
		return
	}
	if rec != nil {
		rec.workspaceID = p.WorkspaceID
	}
	if !p.Has(rt.Scope) {
		s.WriteError(w, r, fail.Errorf(fail.KindForbidden, fail.InsufficientScope, "", "this API key lacks the %s scope", rt.Scope))
		return
	}
	if err := checkQuery(r.URL.RawQuery); err != nil {
		s.WriteError(w, r, err)
		return
	}
	r = r.WithContext(WithPrincipal(r.Context(), p))
	if err := rt.Handler(w, r); err != nil {
		s.WriteError(w, r, err)
	}
}

// Guard serves next behind the API's authentication: a request id, then
// the key or access token checked and counted as an API route's are, a
// failure answered in the error envelope (a 401 with the WWW-Authenticate
// challenge). It is the MCP endpoint's front door.
func (s *Server) Guard(next http.Handler) http.Handler {
	return withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.authenticate(r); err != nil {
			if fail.KindOf(err) == fail.KindUnauthorized {
				w.Header().Set("WWW-Authenticate", Challenge(r))
			}
			s.WriteError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// WriteError writes err in the error envelope, mapped by the error table.
// Faults are logged with their detail and answered as a bare 500.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if HidesDetail(err) {
		s.logger().ErrorContext(r.Context(), "request failed", slog.String("request_id", RequestID(r.Context())), slog.Any("err", err))
	}
	p, _ := ProblemOf(err)
	writeProblem(w, r, p)
}

// HidesDetail reports whether err has detail the client is not shown, which
// goes to the log alone: a fault, or a dependency's failure the client
// sees only as a 503.
func HidesDetail(err error) bool {
	_, ok := ProblemOf(err)
	fe, isFail := fail.As(err)
	return !ok || isFail && fe.Err != nil
}

func (s *Server) errorHandler(err error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.WriteError(w, r, err) })
}

// statusRecorder remembers what the access log line needs.
type statusRecorder struct {
	http.ResponseWriter
	status      int
	workspaceID string
	route       string
}

func (rec *statusRecorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *statusRecorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.ResponseWriter.Write(b)
}

func (s *Server) withLogAndRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.logger().ErrorContext(r.Context(), "handler panic", slog.String("request_id", RequestID(r.Context())), slog.Any("panic", v))
				if rec.status == 0 {
					writeProblem(rec, r, internalProblem)
				}
			}
			route := rec.route
			if route == "" {
				route = r.Method + " (unmatched)"
			}
			s.logger().InfoContext(r.Context(), "request",
				slog.String("request_id", RequestID(r.Context())),
				slog.String("workspace_id", rec.workspaceID),
				slog.String("route", route),
				slog.Int("status", rec.status),
				slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
			)
		}()
		next.ServeHTTP(rec, r)
	})
}
