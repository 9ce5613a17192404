package dashboard

import "net/http"

// soon are the nav entries whose screens are not built yet: each page
// names the console command that does the job meanwhile. A screen built
// later replaces its entry here.
var soon = []struct{ path, title, group, command string }{}

func (a *App) soonRoutes() []route {
	out := []route{{pattern: "GET /settings", handler: func(w http.ResponseWriter, _ *http.Request, s *session) error {
		return a.render(w, s, http.StatusOK, "settings.html", "Settings", "/settings", nil)
	}}}
	for _, p := range soon {
		out = append(out, route{pattern: "GET " + p.path, handler: func(w http.ResponseWriter, _ *http.Request, s *session) error {
			return a.render(w, s, http.StatusOK, "soon.html", p.title, p.path, map[string]string{"Command": p.command, "Group": p.group})
		}})
	}
	return out
}
