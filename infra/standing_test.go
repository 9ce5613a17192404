package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/queue"
)

// standingOf counts what doc holds that CloudWatch and Secrets Manager
// bill by the month: an alarm bills each metric it reads (every metric of
// a metric-math alarm; its expressions are free).
func standingOf(doc cfnTemplate) cost.Standing {
	var s cost.Standing
	for _, a := range doc.ofType("AWS::CloudWatch::Alarm") {
		ms, ok := a.Properties["Metrics"].([]any)
		if !ok {
			s.AlarmMetrics++
			continue
		}
		for _, m := range ms {
			if _, ok := m.(map[string]any)["MetricStat"]; ok {
				s.AlarmMetrics++
			}
		}
	}
	s.Dashboards = len(doc.ofType("AWS::CloudWatch::Dashboard"))
	for _, f := range doc.ofType("AWS::Logs::MetricFilter") {
		ts, _ := f.Properties["MetricTransformations"].([]any)
		s.CustomMetrics += len(ts)
	}
	s.Secrets = len(doc.ofType("AWS::SecretsManager::Secret"))
	return s
}

// What the deployed stack pays each month before any mail is counted from
// its template, priced by internal/cost, and the README's "Cost at rest"
// says the same figures.
func TestStandingCost(t *testing.T) {
	s := synth(t)
	got := standingOf(s.deployment())
	functions := len(functionIDs(t, s.doc))
	// Errors and throttles of each function; DLQ depth and oldest message
	// of each queue; the API's 5XX rate and latency; SES's bounce and
	// complaint rates; the breaker's trips.
	want := cost.Standing{AlarmMetrics: 2*functions + 2*len(queue.All) + 5, Dashboards: 1, CustomMetrics: 1, Secrets: 3}
	if got != want {
		t.Fatalf("standing %+v, want %+v", got, want)
	}
	bill := cost.USEast1.Standing(got)
	t.Logf("a month: %d alarm metrics $%.2f, %d dashboard $%.2f, %d custom metric $%.2f, %d secrets $%.2f: $%.2f",
		got.AlarmMetrics, bill.Alarms, got.Dashboards, bill.Dashboards, got.CustomMetrics, bill.CustomMetrics, got.Secrets, bill.Secrets, bill.Total())

	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, atRest, _ := strings.Cut(string(readme), "**Cost at rest.**")
	atRest, _, _ = strings.Cut(atRest, "\n\n")
	atRest = strings.Join(strings.Fields(atRest), " ") // as the paragraph reads, whatever its line breaks
	for _, figure := range []string{
		fmt.Sprintf("%d alarm metrics ($%.2f", got.AlarmMetrics, bill.Alarms),
		fmt.Sprintf("the dashboard ($%.2f)", bill.Dashboards),
		fmt.Sprintf("custom metric ($%.2f)", bill.CustomMetrics),
		fmt.Sprintf("%d secrets ($%.2f)", got.Secrets, bill.Secrets),
		fmt.Sprintf("$%.2f a month", bill.Total()),
	} {
		if !strings.Contains(atRest, figure) {
			t.Errorf("README, Cost at rest: no %q (the template's count at internal/cost's prices)", figure)
		}
	}
}
