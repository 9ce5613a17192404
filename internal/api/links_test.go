package api_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// linkBudget bounds the internal packages each function links (its
// transitive imports under internal/, as go list -deps counts them):
// a function links only what its route needs, so a read route does not
// link a sender, nor one entity's route another entity's handlers.
//
// Storage is one package per entity over a small table core, and the
// wiring one package per route area, so a read route links its wiring,
// the API core, its entity's service and handlers, the core and its
// repositories (get-email 22: 45 before both). The figures are today's;
// lower one when a change lowers it; a change that raises one says why
// here.
var linkBudget = map[string]int{
	// Served without the table: the API document.
	"get-openapi": 11,

	// Read routes over the table alone: the wiring of each builds only
	// its entity's service and repositories.
	"get-email": 22, "list-emails": 22, "list-clicks": 22, "list-domains": 22,
	"list-events": 23, "get-metrics": 23,
	"list-suppressions": 23, "add-suppressions": 23, "delete-suppression": 23,
	// A contact carries its automation events' reference (automation).
	"create-contact": 33, "list-contacts": 33, "get-contact": 33, "update-contact": 33, "delete-contact": 33,
	"automation-events": 34,
	// A segment's and a template's writes check merge tags and the
	// security review's layout rules.
	"create-segment":  36,
	"create-template": 38, "list-templates": 38, "get-template": 38, "update-template": 38, "delete-template": 38,
	"check-deliverability": 35,
	"cancel-email":         36,
	// The campaign routes resolve a segment, freeze recipients and check
	// the draft's deliverability.
	"send-bulk": 46, "list-campaigns": 46, "get-campaign": 46, "cancel-campaign": 46,

	// The send path: SES, attachments, the MIME writer, the review queue,
	// the status pipeline a failed send records through, and the audit
	// log a connection's emails are tallied in (account, accountdb).
	"send": 58, "send-batch": 58, "review": 59,

	// Consumers and ticks. The send path and the status and webhook
	// consumers also link their per-instance read caches (ttlcache and
	// its users: contextcache, endpointcache).
	"status": 31, "webhook-dispatch": 27,
	"campaign-sender": 66, "campaign-tick": 43,
	"automation-runner": 68, "automation-tick": 33,

	// Sites: the dashboard serves every owner page over every entity's
	// service; the MCP server builds the routes its tools call.
	"dashboard": 69, "oauth": 25, "unsubscribe": 32, "mcp": 81,
}

func TestRouteFunctionsLinkFewPackages(t *testing.T) {
	dirs, err := filepath.Glob("../../functions/*")
	if err != nil || len(dirs) < 10 {
		t.Fatalf("functions: %v, %v", dirs, err)
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"functions/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		fn := strings.TrimPrefix(f[0], module+"functions/")
		linked[fn] = []string{}
		for _, dep := range f[1:] {
			if strings.HasPrefix(dep, module+"internal/") {
				linked[fn] = append(linked[fn], strings.TrimPrefix(dep, module))
			}
		}
	}
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		fn := filepath.Base(dir)
		budget, ok := linkBudget[fn]
		pkgs, listed := linked[fn]
		switch {
		case !ok:
			t.Errorf("%s has no link budget: add its figure (%d) to linkBudget", fn, len(pkgs))
		case !listed:
			t.Errorf("go list did not list functions/%s", fn)
		case len(pkgs) > budget:
			slices.Sort(pkgs)
			t.Errorf("%s links %d internal packages, over its budget of %d:\n%s", fn, len(pkgs), budget, strings.Join(pkgs, "\n"))
		}
	}
}
