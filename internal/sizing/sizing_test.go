package sizing

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// Of knows every function the stack deploys, with the sizing the stack
// gives it, and no other.
func TestOf(t *testing.T) {
	want := map[string]Sizing{}
	for _, f := range routes.RouteFunctions() {
		want[f.Name] = Route(f.Routes[0])
	}
	for _, c := range routes.Consumers {
		want[c.Function] = Consumer(c)
	}
	for _, s := range routes.Schedules {
		want[s.Function] = Scheduled(s)
	}
	for fn, w := range want {
		if got, ok := Of(fn); !ok || got != w {
			t.Errorf("Of(%q) = %v, %v; want %v, true", fn, got, ok, w)
		}
	}
	if got, ok := Of("no-such-function"); ok {
		t.Errorf("Of of an unknown function = %v, true", got)
	}
}
