package dashboard

import "testing"

// Pages are parsed on their first render, so a page that does not parse
// must fail here rather than in front of an owner.
func TestEveryPageParses(t *testing.T) {
	p, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) < 30 {
		t.Fatalf("%d pages found; the templates are embedded from templates/*.html", len(p))
	}
	for name := range p {
		tpl, err := p.lookup(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, want := range []string{"layout", "content"} {
			if tpl.Lookup(want) == nil {
				t.Errorf("%s defines no %q", name, want)
			}
		}
	}
	if _, err := p.lookup("absent.html"); err == nil {
		t.Error("an unknown page was found")
	}
}
