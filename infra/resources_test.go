package main

import (
	"maps"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// CloudFormation refuses a stack of more than cfnResourceLimit resources
// or cfnParameterLimit parameters. The main stack and the monitoring
// nested stack each stay under resourceBudget of the limit, and the main
// stack keeps room for routeRoom more route functions at what a route
// function costs it today (the nested monitoring stack made room for 15;
// the template, email cancel, OAuth and MCP routes took 8 and their paths
// the rest); the monitoring stack, room for their alarms and parameters.
// The next routes past these need the route functions split into nested
// stacks of their own.
const (
	cfnResourceLimit  = 500
	cfnParameterLimit = 200
	resourceBudget    = 0.60
	routeRoom         = 4
)

// maxResourcesPerRouteFunction bounds what one more route costs the main
// stack on average; see functionShares for what is counted. Its failure
// alarm, one more resource, is the monitoring stack's.
const maxResourcesPerRouteFunction = 5.0

func TestTemplateResourceBudget(t *testing.T) {
	s := synth(t)
	budget := int(resourceBudget * cfnResourceLimit)
	count := func(doc cfnTemplate) int {
		// `cdk synth` adds AWS::CDK::Metadata (version reporting), which a
		// synth in a test leaves out: counted, as it counts in AWS.
		n := len(doc.Resources)
		if len(doc.ofType("AWS::CDK::Metadata")) == 0 {
			n++
		}
		return n
	}
	main, monitoring := count(s.doc), count(s.monitoring)
	shares, paths, _ := functionShares(t, s.doc)
	ids := functionIDs(t, s.doc)
	fns := routes.RouteFunctions()
	var perRoute float64
	for _, f := range fns {
		perRoute += shares[ids[f.Name]] / float64(len(fns))
	}
	room := float64(budget-main) / perRoute
	t.Logf("main stack: %d resources of CloudFormation's %d (budget %d, %.0f%%): room for %.1f route functions at %.2f each (and %.2f API path resources per route function today)",
		main, cfnResourceLimit, budget, resourceBudget*100, room, perRoute, float64(paths)/float64(len(fns)))
	t.Logf("monitoring stack: %d resources (budget %d), %d parameters of %d", monitoring, budget, s.monitoringParams, cfnParameterLimit)
	if main > budget || monitoring > budget {
		t.Errorf("main stack %d, monitoring stack %d resources: over the budget of %d (%.0f%% of CloudFormation's %d per stack)", main, monitoring, budget, resourceBudget*100, cfnResourceLimit)
	}
	if room < routeRoom {
		t.Errorf("the main stack has room for %.1f more route functions, want %d", room, routeRoom)
	}
	// Each new function adds one alarm and one parameter (its name) to
	// the monitoring stack.
	if monitoring+routeRoom > budget || s.monitoringParams+routeRoom > cfnParameterLimit {
		t.Errorf("monitoring stack: %d resources, %d parameters: no room for %d more functions' alarms", monitoring, s.monitoringParams, routeRoom)
	}
}

// functionShares attributes template resources to the bootstrap functions,
// by logical id of the function. A function counts:
//   - itself (AWS::Lambda::Function);
//   - its invoke permissions (AWS::Lambda::Permission naming it);
//   - the API methods that integrate it (AWS::ApiGateway::Method, its
//     route's and its path's ANY);
//   - its event source mappings (a queue consumer's);
//   - its share of what it shares with the other functions of its access
//     profile: the role, the role's policies (AWS::IAM::Policy) and the log
//     group, each divided by the number of functions that use it.
//
// Not counted: the API's path resources (AWS::ApiGateway::Resource), one per
// distinct path segment shared by every route under it, so they grow with
// new paths rather than new functions; and the stack's fixed resources
// (table, queues, API, stage, configuration sets, …). Both are returned.
func functionShares(t *testing.T, doc cfnTemplate) (shares map[string]float64, paths, fixed int) {
	t.Helper()
	shares = map[string]float64{}
	users := map[string][]string{} // shared resource id → function ids
	for fnID, fn := range doc.routeFunctions() {
		shares[fnID]++
		role := getAttTarget(fn.Properties["Role"], "Arn")
		users[role] = append(users[role], fnID)
		users[logGroupOf(doc, fnID)] = append(users[logGroupOf(doc, fnID)], fnID)
		for id, p := range doc.ofType("AWS::IAM::Policy") {
			for _, r := range p.Properties["Roles"].([]any) {
				if refTarget(r) == role {
					users[id] = append(users[id], fnID)
				}
			}
		}
	}
	attributed := len(shares)
	for id, fnIDs := range users {
		if doc.Resources[id].Type == "" {
			t.Fatalf("%s, used by %v, is not a resource of the stack", id, fnIDs)
		}
		for _, fnID := range fnIDs {
			shares[fnID] += 1 / float64(len(fnIDs))
		}
	}
	attributed += len(users)
	own := func(typ string, fnIDsOf func(cfnResource) []string) {
		for id, r := range doc.ofType(typ) {
			fnIDs := fnIDsOf(r)
			if len(fnIDs) != 1 {
				t.Fatalf("%s %s names functions %v, want one", typ, id, fnIDs)
			}
			shares[fnIDs[0]]++
			attributed++
		}
	}
	own("AWS::Lambda::Permission", func(r cfnResource) []string {
		return []string{getAttTarget(r.Properties["FunctionName"], "Arn")}
	})
	own("AWS::ApiGateway::Method", func(r cfnResource) []string {
		integ, _ := r.Properties["Integration"].(map[string]any)
		return getAttTargets(integ["Uri"], "Arn")
	})
	own("AWS::Lambda::EventSourceMapping", func(r cfnResource) []string {
		return []string{refTarget(r.Properties["FunctionName"])}
	})
	paths = len(doc.ofType("AWS::ApiGateway::Resource"))
	fixed = len(doc.Resources) - attributed - paths
	return shares, paths, fixed
}

func TestResourcesPerRouteFunction(t *testing.T) {
	s := synth(t)
	shares, paths, fixed := functionShares(t, s.doc)
	ids := functionIDs(t, s.doc)

	average := func(names []string) float64 {
		var sum float64
		for _, name := range names {
			sum += shares[ids[name]]
		}
		return sum / float64(len(names))
	}
	var routeNames, consumerNames []string
	for _, f := range routes.RouteFunctions() {
		routeNames = append(routeNames, f.Name)
	}
	for _, c := range routes.Consumers {
		consumerNames = append(consumerNames, c.Function)
	}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		t.Logf("%-17s %.2f resources", name, shares[ids[name]])
	}
	perRoute := average(routeNames)
	t.Logf("template (without CDK metadata): %d resources for %d functions, %.2f per function; fixed %d, API path resources %d (%.2f per route function, not counted below)",
		len(s.doc.Resources), len(ids), float64(len(s.doc.Resources))/float64(len(ids)), fixed, paths, float64(paths)/float64(len(routeNames)))
	t.Logf("per route function %.2f (limit %.1f), per queue consumer %.2f", perRoute, maxResourcesPerRouteFunction, average(consumerNames))
	if perRoute > maxResourcesPerRouteFunction {
		t.Errorf("route functions: %.2f resources each on average, want at most %.1f (function, permissions, methods, alarm, share of role, policies and log group)",
			perRoute, maxResourcesPerRouteFunction)
	}
}
