package main

import (
	"maps"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// CloudFormation refuses a stack of more than cfnResourceLimit resources.
// The stack stays under resourceBudget of it, leaving room for the routes
// still to come (about 30 functions in all) without a nested stack.
const (
	cfnResourceLimit = 500
	resourceBudget   = 0.60
)

// maxResourcesPerRouteFunction bounds what one more route costs the
// template on average; see functionShares for what is counted. Its
// failure alarm (errors and throttles in one metric-math alarm, not two
// alarms) took it from 5 to 6.
const maxResourcesPerRouteFunction = 6.0

func TestTemplateResourceBudget(t *testing.T) {
	s := synth(t)
	n := len(s.doc.Resources)
	// `cdk synth` adds AWS::CDK::Metadata (version reporting), which a
	// synth in a test leaves out: counted, as it counts in AWS.
	if len(s.doc.ofType("AWS::CDK::Metadata")) == 0 {
		n++
	}
	budget := int(resourceBudget * cfnResourceLimit)
	t.Logf("template: %d resources of CloudFormation's %d (budget %d, %.0f%%)", n, cfnResourceLimit, budget, resourceBudget*100)
	if n > budget {
		t.Errorf("template: %d resources, over the budget of %d (%.0f%% of CloudFormation's %d per stack)", n, budget, resourceBudget*100, cfnResourceLimit)
	}
}

// functionShares attributes template resources to the bootstrap functions,
// by logical id of the function. A function counts:
//   - itself (AWS::Lambda::Function);
//   - its invoke permissions (AWS::Lambda::Permission naming it);
//   - the API methods that integrate it (AWS::ApiGateway::Method, its
//     route's and its path's ANY);
//   - its event source mappings (a queue consumer's);
//   - its alarms (AWS::CloudWatch::Alarm watching it alone);
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
	for _, r := range doc.ofType("AWS::CloudWatch::Alarm") {
		var fnIDs []string
		for _, id := range references(r.Properties) {
			if _, ok := shares[id]; ok && !slices.Contains(fnIDs, id) {
				fnIDs = append(fnIDs, id)
			}
		}
		if len(fnIDs) == 1 {
			shares[fnIDs[0]]++
			attributed++
		}
	}
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
