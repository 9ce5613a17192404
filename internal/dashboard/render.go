package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"
)

// pages are the templates, by file name: each page is the layout with its
// own "content", parsed on its first render. A cold start serves one page:
// parsing all 36 at start took 4-9 ms of every start (BenchmarkInit);
// TestEveryPageParses keeps a broken page out of a build.
type pages map[string]func() (*template.Template, error)

// lookup is page name, parsed.
func (p pages) lookup(name string) (*template.Template, error) {
	parse, ok := p[name]
	if !ok {
		return nil, fmt.Errorf("dashboard: no template %s", name)
	}
	return parse()
}

var funcs = template.FuncMap{
	"time": func(t time.Time) string {
		if t.IsZero() {
			return "–"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"percent": func(f float64) string { return fmt.Sprintf("%.2f %%", f*100) },
	"bytes":   byteSize,
	// stepNumber is a run's 0-based step index as the editor numbers
	// steps, from 1.
	"stepNumber": func(i int) int { return i + 1 },
	"join": func(v any) string {
		switch v := v.(type) {
		case []string:
			return strings.Join(v, ", ")
		case fmt.Stringer:
			return v.String()
		}
		return fmt.Sprint(v)
	},
}

// byteSize is n bytes as a person reads it: 512 bytes, 12.3 KB, 4.5 MB.
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

func parsePages() (pages, error) {
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := pages{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "templates/")
		if base == "layout.html" {
			continue
		}
		out[base] = sync.OnceValues(func() (*template.Template, error) {
			t, err := template.New(base).Funcs(funcs).ParseFS(assets, "templates/layout.html", name)
			if err != nil {
				return nil, fmt.Errorf("dashboard template %s: %w", base, err)
			}
			return t, nil
		})
	}
	return out, nil
}

// navItem is one entry of the layout's navigation.
type navItem struct {
	Label, Path string
}

// nav is the layout's navigation, in order.
var nav = []navItem{
	{"Overview", "/"}, {"Emails", "/emails"}, {"Approvals", "/approvals"}, {"Held", "/held"},
	{"Campaigns", "/campaigns"}, {"Contacts", "/contacts"}, {"Segments", "/segments"}, {"Templates", "/templates"},
	{"Suppressions", "/suppressions"}, {"Automations", "/automations"}, {"Settings", "/settings"},
}

// view is what every template gets: the layout's fields and the page's
// Data.
type view struct {
	Title string
	// Active is the nav entry's Path the page belongs to.
	Active string
	Nav    []navItem
	Base   string
	// Session is nil on the pages shown before signing in.
	Session *session
	CSRF    string
	Data    any
}

// render writes page name with status, data in view.Data.
func (a *App) render(w http.ResponseWriter, s *session, status int, name, title, active string, data any) error {
	b, err := a.page(s, name, title, active, data)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

// page is page name rendered, data in view.Data.
func (a *App) page(s *session, name, title, active string, data any) ([]byte, error) {
	t, err := a.pages.lookup(name)
	if err != nil {
		return nil, err
	}
	v := view{Title: title, Active: active, Nav: nav, Base: a.base, Session: s, Data: data}
	if s != nil {
		v.CSRF = s.CSRF
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return nil, fmt.Errorf("dashboard: render %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// errorPage is the error state of any page: a status, a title and what
// to do.
func (a *App) errorPage(w http.ResponseWriter, r *http.Request, s *session, status int, title, message string) {
	if s != nil && s.WorkspaceID == "" {
		s = nil // no navigation into a workspace not picked
	}
	err := a.render(w, s, status, "error.html", title, "", map[string]string{"Message": message})
	if err != nil {
		a.logger.ErrorContext(r.Context(), "dashboard error page failed", "err", err)
		http.Error(w, title, status)
	}
}
