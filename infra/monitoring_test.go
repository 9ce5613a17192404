package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// alarmText renders what an alarm watches and when it fires, e.g.
// "AWS/SQS ApproximateNumberOfMessagesVisible{QueueName=${Q.QueueName}} Maximum/300s >= 1 for 1".
// A metric-math alarm lists its expression and then each metric by id.
func alarmText(p map[string]any) string {
	var what string
	if ms, ok := p["Metrics"].([]any); ok {
		var expr string
		var metrics []string
		for _, m := range ms {
			m := m.(map[string]any)
			if e, ok := m["Expression"].(string); ok {
				expr = e
				continue
			}
			stat, _ := m["MetricStat"].(map[string]any)
			metrics = append(metrics, fmt.Sprintf("%v=%s", m["Id"], metricText(stat["Metric"].(map[string]any), stat["Stat"], stat["Period"])))
		}
		slices.Sort(metrics)
		what = expr + " of " + strings.Join(metrics, ", ")
	} else {
		stat := p["Statistic"]
		if stat == nil {
			stat = p["ExtendedStatistic"]
		}
		what = metricText(p, stat, p["Period"])
	}
	op := map[any]string{"GreaterThanOrEqualToThreshold": ">="}[p["ComparisonOperator"]]
	if op == "" {
		op = fmt.Sprint(p["ComparisonOperator"])
	}
	return fmt.Sprintf("%s %s %v for %v", what, op, p["Threshold"], p["EvaluationPeriods"])
}

// metricText is "namespace name{dimension=value,…} statistic/periods".
func metricText(m map[string]any, stat, period any) string {
	var dims []string
	ds, _ := m["Dimensions"].([]any)
	for _, d := range ds {
		d := d.(map[string]any)
		dims = append(dims, fmt.Sprintf("%v=%s", d["Name"], render(d["Value"])))
	}
	slices.Sort(dims)
	return fmt.Sprintf("%v %v{%s} %v/%vs", m["Namespace"], m["MetricName"], strings.Join(dims, ","), stat, period)
}

// wantAlarms is every alarm the stack must have, by alarmText, worked out
// from the resources it watches and the thresholds of the issue (and of
// docs/decisions.md, "Alarms").
func wantAlarms(t *testing.T, doc cfnTemplate) map[string]bool {
	t.Helper()
	queues := queueIDs(doc)
	oldest := map[string]int{ // seconds, per queue
		queue.SESEvents.Name: 900, queue.Webhooks.Name: 3600, queue.Review.Name: 900,
		queue.Sends.Name: 3600, queue.Automations.Name: 1800,
	}
	want := map[string]bool{}
	for _, d := range queue.All {
		want[fmt.Sprintf("AWS/SQS ApproximateNumberOfMessagesVisible{QueueName=${%s.QueueName}} Maximum/300s >= 1 for 1", queues[d.DLQName()])] = true
		if _, ok := oldest[d.Name]; !ok {
			t.Fatalf("queue %s: no oldest-message threshold in this test", d.Name)
		}
		want[fmt.Sprintf("AWS/SQS ApproximateAgeOfOldestMessage{QueueName=${%s.QueueName}} Maximum/300s >= %d for 1", queues[d.Name], oldest[d.Name])] = true
	}
	for _, id := range functionIDs(t, doc) {
		want[fmt.Sprintf("errors + throttles of errors=AWS/Lambda Errors{FunctionName=${%s}} Sum/300s, throttles=AWS/Lambda Throttles{FunctionName=${%s}} Sum/300s >= 1 for 1", id, id)] = true
	}
	api := "ApiName=" + testStackName + "-api"
	want["AWS/ApiGateway 5XXError{"+api+"} Average/300s >= 0.05 for 3"] = true
	want["AWS/ApiGateway Latency{"+api+"} p99/300s >= 3000 for 3"] = true
	want["AWS/SES Reputation.BounceRate{} Maximum/3600s >= 0.04 for 1"] = true
	want["AWS/SES Reputation.ComplaintRate{} Maximum/3600s >= 0.0008 for 1"] = true
	want["Sesame/"+testStackName+" CampaignBreakerTrips{} Sum/300s >= 1 for 1"] = true
	return want
}

// Every alarm of the issue is there, watching the right metric with the
// right threshold, and notifies the alarms topic when it fires and when it
// clears; there is no other alarm. Both modes.
func TestAlarms(t *testing.T) {
	for mode, s := range map[string]*synthed{"default": synth(t), "localstack": synthLocalStack(t)} {
		topic := topicID(t, s.monitoring, "alarms")
		want := wantAlarms(t, s.doc)
		got := map[string]bool{}
		if n := len(s.doc.ofType("AWS::CloudWatch::Alarm")); n != 0 {
			t.Errorf("%s: %d alarms in the main stack, want all in the monitoring stack", mode, n)
		}
		for id, a := range s.monitoring.ofType("AWS::CloudWatch::Alarm") {
			p := a.Properties
			text := alarmText(p)
			if got[text] {
				t.Errorf("%s: two alarms %s", mode, text)
			}
			got[text] = true
			for _, actions := range []string{"AlarmActions", "OKActions"} {
				as, _ := p[actions].([]any)
				if len(as) != 1 || refTarget(as[0]) != topic {
					t.Errorf("%s: %s: %s %v, want the alarms topic", mode, id, actions, p[actions])
				}
			}
			if p["TreatMissingData"] != "notBreaching" || p["AlarmDescription"] == nil {
				t.Errorf("%s: %s: TreatMissingData %v, description %v; want notBreaching and a description", mode, id, p["TreatMissingData"], p["AlarmDescription"])
			}
		}
		for _, text := range slices.Sorted(maps.Keys(want)) {
			if !got[text] {
				t.Errorf("%s: no alarm %s", mode, text)
			}
		}
		for _, text := range slices.Sorted(maps.Keys(got)) {
			if !want[text] {
				t.Errorf("%s: unexpected alarm %s", mode, text)
			}
		}
	}
}

// Every queue with a dead-letter queue has an alarm on the dead-letter
// queue's depth and one on its own oldest message, whatever queues are
// added later.
func TestEveryQueueWithADLQIsWatched(t *testing.T) {
	s := synth(t)
	watched := map[string]map[string]bool{} // queue logical id → metric names
	for _, a := range s.monitoring.ofType("AWS::CloudWatch::Alarm") {
		p := a.Properties
		ds, _ := p["Dimensions"].([]any)
		for _, d := range ds {
			if d := d.(map[string]any); d["Name"] == "QueueName" {
				q := getAttTarget(d["Value"], "QueueName")
				if watched[q] == nil {
					watched[q] = map[string]bool{}
				}
				watched[q][p["MetricName"].(string)] = true
			}
		}
	}
	n := 0
	for id, q := range s.doc.ofType("AWS::SQS::Queue") {
		redrive, _ := q.Properties["RedrivePolicy"].(map[string]any)
		if redrive == nil {
			continue
		}
		n++
		dlq := getAttTarget(redrive["deadLetterTargetArn"], "Arn")
		if !watched[dlq]["ApproximateNumberOfMessagesVisible"] {
			t.Errorf("%s: its dead-letter queue %s has no depth alarm", id, dlq)
		}
		if !watched[id]["ApproximateAgeOfOldestMessage"] {
			t.Errorf("%s has no oldest-message alarm", id)
		}
	}
	if n != len(queue.All) {
		t.Errorf("%d queues with a dead-letter queue, want %d", n, len(queue.All))
	}
}

// synthAlertEmail is the stack deployed with -c alertEmail=ops@example.com.
func synthAlertEmail(t *testing.T) *synthed {
	t.Helper()
	return synthWith(t, "alert-email", map[string]any{contextAlertEmail: "ops@example.com"})
}

// The alarms topic refuses publishing without TLS; -c alertEmail
// subscribes the address by email, and without it nobody is subscribed.
func TestAlarmsTopicSubscription(t *testing.T) {
	for name, tc := range map[string]struct {
		s    *synthed
		want []string
	}{
		"without alertEmail": {synth(t), nil},
		"with alertEmail":    {synthAlertEmail(t), []string{"email ops@example.com"}},
	} {
		topic := topicID(t, tc.s.monitoring, "alarms")
		var got []string
		for _, sub := range onTopic(tc.s.monitoring, "AWS::SNS::Subscription", topic) {
			got = append(got, fmt.Sprintf("%v %v", sub.Properties["Protocol"], sub.Properties["Endpoint"]))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: subscriptions %v, want %v", name, got, tc.want)
		}
		tls := false
		for _, tp := range onTopic(tc.s.monitoring, "AWS::SNS::TopicPolicy", topic) {
			doc, _ := tp.Properties["PolicyDocument"].(map[string]any)
			for _, st := range doc["Statement"].([]any) {
				st := st.(map[string]any)
				cond, _ := st["Condition"].(map[string]any)
				b, _ := cond["Bool"].(map[string]any)
				tls = tls || st["Effect"] == "Deny" && b["aws:SecureTransport"] == "false"
			}
		}
		if !tls {
			t.Errorf("%s: the alarms topic does not refuse publishing without TLS", name)
		}
	}
}

// The main stack's AlarmsTopicArn output, where the operator finds the
// topic to subscribe to (README, Alarms), is the monitoring stack's topic.
func TestAlarmsTopicOutput(t *testing.T) {
	for mode, s := range map[string]*synthed{"default": synth(t), "localstack": synthLocalStack(t)} {
		topic := topicID(t, s.monitoring, "alarms")
		out, _ := s.doc.Outputs["AlarmsTopicArn"].(map[string]any)
		ga, _ := out["Value"].(map[string]any)["Fn::GetAtt"].([]any)
		if len(ga) != 2 || s.doc.Resources[fmt.Sprint(ga[0])].Type != "AWS::CloudFormation::Stack" {
			t.Fatalf("%s: output AlarmsTopicArn = %v, want an output of the monitoring stack", mode, s.doc.Outputs["AlarmsTopicArn"])
		}
		name, _ := strings.CutPrefix(fmt.Sprint(ga[1]), "Outputs.")
		nestedOut, _ := s.monitoring.Outputs[name].(map[string]any)
		if refTarget(nestedOut["Value"]) != topic {
			t.Errorf("%s: output AlarmsTopicArn is the monitoring stack's %s = %v, want the alarms topic's Ref", mode, name, s.monitoring.Outputs[name])
		}
	}
}

// The dashboard shows sends, deliveries, bounces and complaints, the depth
// of every queue, every function's errors and the API's latency.
func TestDashboard(t *testing.T) {
	s := synth(t)
	id := onlyID(t, s.monitoring, "AWS::CloudWatch::Dashboard")
	body := render(s.monitoring.Resources[id].Properties["DashboardBody"])
	for _, want := range []string{
		`"AWS/SES","Send"`, `"AWS/SES","Delivery"`, `"AWS/SES","Bounce"`, `"AWS/SES","Complaint"`,
		`"AWS/ApiGateway","Latency"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboard: no %s", want)
		}
	}
	for name, q := range queueIDs(s.doc) {
		if !strings.Contains(body, `"AWS/SQS","ApproximateNumberOfMessagesVisible","QueueName","${`+q+`.QueueName}"`) {
			t.Errorf("dashboard: no depth of queue %s", name)
		}
	}
	for name, fn := range functionIDs(t, s.doc) {
		if !strings.Contains(body, `"AWS/Lambda","Errors","FunctionName","${`+fn+`}"`) {
			t.Errorf("dashboard: no errors of function %s", name)
		}
	}
	if n := len(synthLocalStack(t).deployment().ofType("AWS::CloudWatch::Dashboard")); n != 0 {
		t.Errorf("LocalStack mode: %d dashboards, want none (the community image has none)", n)
	}
}

// matches is whether a JSON log line (decoded) passes filter m: each field
// a string equal to its value, a trailing * matching any rest.
func (m logMatch) matches(line map[string]any) bool {
	for k, want := range m {
		got, ok := line[k].(string)
		prefix, wild := strings.CutSuffix(want, "*")
		if !ok || (wild && !strings.HasPrefix(got, prefix)) || (!wild && got != want) {
			return false
		}
	}
	return true
}

// The metric filter counts the line the campaign sender logs when the
// reputation breaker pauses a campaign, read from the campaign sender's
// own log group, and no other pause.
func TestBreakerTripMetricFilter(t *testing.T) {
	tripped := campaign.Tally{Sent: 1000, Bounced: 100}
	complained := campaign.Tally{Sent: 1000, Complained: 5}
	for name, tc := range map[string]struct {
		ws    workspace.Workspace
		tally campaign.Tally
		want  bool
	}{
		"bounces trip the breaker":       {workspace.Workspace{PostalAddress: "1 Main St"}, tripped, true},
		"complaints trip the breaker":    {workspace.Workspace{PostalAddress: "1 Main St"}, complained, true},
		"no postal address is no breach": {workspace.Workspace{}, tripped, false},
	} {
		line := pauseLogLine(t, tc.ws, tc.tally)
		if got := breakerTrip.matches(line); got != tc.want {
			t.Errorf("%s: the filter matches %v: %v, want %v", name, line, got, tc.want)
		}
	}

	s := synth(t)
	id := onlyID(t, s.monitoring, "AWS::Logs::MetricFilter")
	p := s.monitoring.Resources[id].Properties
	sender := functionIDs(t, s.doc)[routes.CampaignSender.Function]
	if refTarget(p["LogGroupName"]) != logGroupOf(s.doc, sender) {
		t.Errorf("metric filter on %v, want the campaign sender's log group %s", p["LogGroupName"], logGroupOf(s.doc, sender))
	}
	const wantPattern = `{ ($.msg = "campaign paused") && ($.reason = "reputation circuit breaker*") }`
	if p["FilterPattern"] != wantPattern {
		t.Errorf("pattern %v, want %s", p["FilterPattern"], wantPattern)
	}
	wantMetric := []any{map[string]any{"MetricNamespace": "Sesame/" + testStackName, "MetricName": "CampaignBreakerTrips", "MetricValue": "1"}}
	if got, _ := json.Marshal(p["MetricTransformations"]); string(got) != mustJSON(t, wantMetric) {
		t.Errorf("metric %s, want %s", got, mustJSON(t, wantMetric))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pauseLogLine runs the campaign sender on a one-recipient chunk of a
// sending campaign, ws its workspace and tally its recent reputation, and
// returns the "campaign paused" line it logs (the JSON handler of the
// functions, internal/api/wire).
func pauseLogLine(t *testing.T, ws workspace.Workspace, tally campaign.Tally) map[string]any {
	t.Helper()
	var logs bytes.Buffer
	started := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	s := &engine.Sender{
		Campaigns:  pausedCampaigns{started: started},
		Store:      freshChunks{},
		Workspaces: oneWorkspace{ws},
		Reputation: fixedTally{tally},
		Breaker:    engine.DefaultThresholds,
		Logger:     slog.New(slog.NewJSONHandler(&logs, nil)),
		Now:        func() time.Time { return started.Add(time.Hour) },
	}
	if err := s.SendChunk(t.Context(), engine.ChunkMessage{WorkspaceID: "ws", CampaignID: "c1"}); err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(logs.String()) {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if line["msg"] == "campaign paused" {
			return line
		}
	}
	t.Fatalf("no campaign paused line in %s", logs.String())
	return nil
}

// The sender's stores, as a breaker check needs them; any other call
// panics on the nil interface.
type pausedCampaigns struct {
	engine.Campaigns
	started time.Time
}

func (c pausedCampaigns) GetCampaign(_ context.Context, ws, id string) (campaign.Campaign, error) {
	return campaign.Campaign{ID: id, WorkspaceID: ws, Status: campaign.StatusSending, StartedAt: &c.started}, nil
}

func (pausedCampaigns) ReadChunk(context.Context, string, string, int) ([]string, error) {
	return []string{"contact-1"}, nil
}

func (pausedCampaigns) TransitionCampaign(_ context.Context, ws, id string, _ []campaign.Status, to campaign.Status, _ time.Time, _ string) (campaign.Campaign, error) {
	return campaign.Campaign{ID: id, WorkspaceID: ws, Status: to}, nil
}

type freshChunks struct{ engine.Store }

func (freshChunks) Progress(context.Context, string, string, int) (campaign.Progress, error) {
	return campaign.Progress{}, nil
}

type oneWorkspace struct{ ws workspace.Workspace }

func (w oneWorkspace) GetWorkspace(context.Context, string) (workspace.Workspace, error) {
	return w.ws, nil
}

type fixedTally struct{ tally campaign.Tally }

func (fixedTally) CountSent(context.Context, string, time.Time, int) error { return nil }

func (r fixedTally) Tally(context.Context, string, time.Time, time.Time) (campaign.Tally, error) {
	return r.tally, nil
}
