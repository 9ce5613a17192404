package httpapi

import "net/http"

// servePublic serves a route that needs no API key (routes.Route.Public):
// no key lookup, no scope, no per-key rate limit, and no principal in the
// context. It still gets the request id, the error envelope and the log line.
func (s *Server) servePublic(w http.ResponseWriter, r *http.Request, rt Route) {
	if err := rt.Handler(w, r); err != nil {
		s.WriteError(w, r, err)
	}
}
