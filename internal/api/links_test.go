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
// Every function that reads the table still links all of internal/dynamo,
// one package holding every entity's repository (31 internal packages on
// its own); once storage is split by entity, a read route links the table
// core and its entity's repository alone, and get-email should fall to
// about 22 (its wiring, the API core, the email service and handlers,
// the core, the email and key repositories). Lower a figure when a change
// lowers it; a change that raises one says why here.
var linkBudget = map[string]int{
	// Served without the table: the API document.
	"get-openapi": 11,

	// Read routes over the table alone (emails, events, domains, metrics,
	// suppressions, contacts, segments, templates, campaigns: the wiring
	// of each builds only its entity's service and repositories).
	"get-email": 40, "list-emails": 40, "list-clicks": 40,
	"list-events": 40, "list-domains": 40, "get-metrics": 41,
	"list-suppressions": 40, "add-suppressions": 40, "delete-suppression": 40,
	"create-contact": 40, "list-contacts": 40, "get-contact": 40, "update-contact": 40, "delete-contact": 40,
	"create-segment":  40,
	"create-template": 40, "list-templates": 40, "get-template": 40, "update-template": 40, "delete-template": 40,
	"check-deliverability": 41,
	"cancel-email":         40,
	// The campaign routes resolve a segment and check the draft's
	// deliverability.
	"send-bulk": 44, "list-campaigns": 44, "get-campaign": 44, "cancel-campaign": 44,
	"automation-events": 40,

	// The send path: SES, attachments, the MIME writer, the review queue.
	"send": 48, "send-batch": 48, "review": 49,

	// Consumers and ticks.
	"status": 39, "webhook-dispatch": 41,
	"campaign-sender": 50, "campaign-tick": 40,
	"automation-runner": 52, "automation-tick": 40,

	// Sites: the dashboard serves every owner page; the MCP server's
	// wiring is package api, which builds every function (a debt: its own
	// package would link its tools' services alone).
	"dashboard": 50, "oauth": 39, "unsubscribe": 39, "mcp": 92,
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
