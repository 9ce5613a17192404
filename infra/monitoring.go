package main

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/queue"
)

// What tells the operator that something is wrong: standard-resolution
// CloudWatch alarms, all sending to one SNS topic, and one dashboard, in a
// nested stack of their own (monitoringID): the main stack's resources
// are left to the routes (TestTemplateResourceBudget). What they watch in
// the main stack reaches the nested stack as its parameters, which CDK
// adds for each reference.

// monitoringID is the construct id of the monitoring nested stack.
const monitoringID = "Monitoring"

// alarmPeriod is the period of every alarm on a per-request or per-queue
// metric: standard resolution (high resolution costs three times more).
const alarmPeriod = 5 * time.Minute

// SES's own review thresholds are a 5 % bounce rate and a 0.1 % complaint
// rate; the alarms fire before them, at the reputation breaker's
// thresholds (engine.DefaultThresholds).
const (
	sesBounceRateAlarm    = 0.04
	sesComplaintRateAlarm = 0.0008
	// sesReputationPeriod: SES updates the account's reputation rates
	// a few times an hour at most.
	sesReputationPeriod = time.Hour
)

// The API alarms fire on a sustained fault, not on one slow or failed
// request at night: apiAlarmPeriods periods in a row.
const (
	apiServerErrorRate = 0.05 // a 5XXError average of 5 %
	apiLatencyP99      = 3 * time.Second
	apiAlarmPeriods    = 3
)

// oldestMessageAlarm is, per queue, how old its oldest message may grow
// before the alarm: the queue's consumer is stopped or far behind.
// SQS leaves out of ApproximateAgeOfOldestMessage a message received
// three times or more, so retries on a long schedule do not raise it.
var oldestMessageAlarm = map[string]time.Duration{
	// SES events are applied within seconds.
	queue.SESEvents.Name: 15 * time.Minute,
	// A webhook's first retries wait 1, 5 and 15 minutes (with up to 20 %
	// jitter) before SQS stops counting its message here.
	queue.Webhooks.Name: time.Hour,
	queue.Review.Name:   15 * time.Minute,
	// A chunk may wait behind a campaign's other chunks at the account's
	// SES send rate.
	queue.Sends.Name: time.Hour,
	// Wake-ups are delayed by up to 15 minutes (SQS DelaySeconds).
	queue.Automations.Name: 30 * time.Minute,
}

// breakerTrip matches the log line of a campaign the reputation breaker
// paused (engine.Sender.pause, "campaign paused" with the breaker's
// reason): JSON fields, a trailing * matching any rest of the value.
var breakerTrip = logMatch{"msg": "campaign paused", "reason": "reputation circuit breaker*"}

// logMatch is a CloudWatch Logs JSON filter: every field equal to its
// value, where a * at the end of a value matches any rest.
type logMatch map[string]string

// filterPattern is m as a metric filter's pattern.
func (m logMatch) filterPattern() awslogs.IFilterPattern {
	var terms []awslogs.JsonPattern
	for _, k := range slices.Sorted(maps.Keys(m)) {
		terms = append(terms, awslogs.FilterPattern_StringValue(jsii.String("$."+k), jsii.String("="), jsii.String(m[k])))
	}
	return awslogs.FilterPattern_All(terms...)
}

// breakerMetricName is the custom metric counting breakerTrip lines, in
// the stack's own namespace (metricNamespace).
const breakerMetricName = "CampaignBreakerTrips"

func metricNamespace(stackName string) string { return "Sesame/" + stackName }

// monitored are the resources the alarms and the dashboard watch.
type monitored struct {
	api    awsapigateway.RestApi
	queues map[string]awssqs.Queue // by queue.Def name
	// functions by function name.
	functions map[string]awslambda.Function
	// senderLogs is the log group of the campaign sender.
	senderLogs awslogs.ILogGroup
}

// newMonitoring creates the monitoring nested stack in stack: the alarms
// topic, the alarms and the dashboard. Their names are the main stack's
// (a nested stack's own name is CloudFormation's choice). LocalStack's
// community image has no metric filters or dashboards
// (localStackModeRemoves): that mode leaves them out and keeps the rest.
func newMonitoring(stack awscdk.Stack, opts deployOptions, m monitored) awscdk.NestedStack {
	nested := awscdk.NewNestedStack(stack, jsii.String(monitoringID), &awscdk.NestedStackProps{
		Description: jsii.String("Sesame monitoring: the alarms, their topic and the dashboard of stack " + *stack.StackName()),
	})
	name := *stack.StackName()
	topic := newAlarmsTopic(nested, name, opts)
	// The operator finds the topic among the main stack's outputs.
	awscdk.NewCfnOutput(stack, jsii.String("AlarmsTopicArn"), &awscdk.CfnOutputProps{
		Value:       topic.TopicArn(),
		Description: jsii.String("Every alarm notifies this topic: subscribe an address to it (README, Alarms)"),
	})
	a := alarms{scope: nested, stackName: name, action: awscloudwatchactions.NewSnsAction(topic)}
	a.addQueues(m.queues)
	a.addFunctions(m.functions)
	a.add("Api5xxRate", m.api.MetricServerError(&awscloudwatch.MetricOptions{Period: period(alarmPeriod), Statistic: jsii.String("Average")}),
		apiServerErrorRate, apiAlarmPeriods,
		fmt.Sprintf("%g %% or more of API requests answered 5XX for %s.", 100*apiServerErrorRate, minutes(apiAlarmPeriods*alarmPeriod)))
	a.add("ApiLatencyP99", m.api.MetricLatency(&awscloudwatch.MetricOptions{Period: period(alarmPeriod), Statistic: jsii.String("p99")}),
		float64(apiLatencyP99.Milliseconds()), apiAlarmPeriods,
		fmt.Sprintf("The API's p99 latency was %s or more for %s.", apiLatencyP99, minutes(apiAlarmPeriods*alarmPeriod)))
	a.add("SesBounceRate", sesMetric("Reputation.BounceRate", "Maximum", sesReputationPeriod), sesBounceRateAlarm, 1,
		fmt.Sprintf("The account's SES bounce rate reached %g %% (SES reviews an account at 5 %%): find the list or campaign that bounces.", 100*sesBounceRateAlarm))
	a.add("SesComplaintRate", sesMetric("Reputation.ComplaintRate", "Maximum", sesReputationPeriod), sesComplaintRateAlarm, 1,
		fmt.Sprintf("The account's SES complaint rate reached %g %% (SES reviews an account at 0.1 %%): find the list or campaign recipients complain of.", 100*sesComplaintRateAlarm))

	trips := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(metricNamespace(name)), MetricName: jsii.String(breakerMetricName),
		Statistic: jsii.String("Sum"), Period: period(alarmPeriod),
	})
	a.add("CampaignBreakerTripped", trips, 1, 1,
		"The reputation breaker paused a campaign: its recipients bounce or complain. GET /api/v1/campaigns shows it paused, with the reason.")
	if opts.localStack {
		return nested
	}
	// A metric filter rather than a PutMetricData call: the line is
	// logged anyway, and the metric costs no request.
	awslogs.NewMetricFilter(nested, jsii.String("CampaignBreakerTrips"), &awslogs.MetricFilterProps{
		LogGroup:        m.senderLogs,
		FilterPattern:   breakerTrip.filterPattern(),
		MetricNamespace: jsii.String(metricNamespace(name)),
		MetricName:      jsii.String(breakerMetricName),
		MetricValue:     jsii.String("1"),
	})
	newDashboard(nested, name, m)
	return nested
}

// newAlarmsTopic creates in scope the topic every alarm notifies, named
// after the main stack, with the context's alertEmail subscribed if set.
func newAlarmsTopic(scope constructs.Construct, stackName string, opts deployOptions) awssns.Topic {
	topic := awssns.NewTopic(scope, jsii.String("AlarmsTopic"), &awssns.TopicProps{
		TopicName:   jsii.String(stackName + "-alarms"),
		DisplayName: jsii.String("Sesame alarms"),
		EnforceSSL:  jsii.Bool(true),
	})
	if opts.alertEmail != "" {
		// SNS mails a confirmation link first; nothing arrives until the
		// address confirms.
		sub := topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(opts.alertEmail), nil))
		suppress(sub, "Serverless-SNSRedrivePolicy", "A notification SNS could not email would wait in a queue nobody reads; "+
			"the alarm itself stays in its state in CloudWatch, and the topic's other subscribers still hear it.")
	}
	return topic
}

// addQueues adds the alarms of each queue: its dead-letter queue's depth
// and its oldest message's age.
func (a alarms) addQueues(queues map[string]awssqs.Queue) {
	for _, d := range queue.All {
		q := queues[d.Name]
		a.add("DlqDepth-"+d.Name, q.DeadLetterQueue().Queue.MetricApproximateNumberOfMessagesVisible(maxOver(alarmPeriod)), 1, 1,
			fmt.Sprintf("A message of the %s queue failed %d times and waits in %s: inspect it, fix the cause, redrive it.", d.Name, d.MaxReceives, d.DLQName()))
		age, ok := oldestMessageAlarm[d.Name]
		if !ok {
			panic("infra: queue " + d.Name + " has no entry in oldestMessageAlarm")
		}
		a.add("OldestMessage-"+d.Name, q.MetricApproximateAgeOfOldestMessage(maxOver(alarmPeriod)), age.Seconds(), 1,
			fmt.Sprintf("The oldest message of the %s queue is %s old or more: its consumer is failing or far behind.", d.Name, minutes(age)))
	}
}

// addFunctions adds one alarm per function on its errors and throttles
// together: billed the same as two alarms (per metric), one resource
// instead of two (TestTemplateResourceBudget).
func (a alarms) addFunctions(functions map[string]awslambda.Function) {
	for _, name := range slices.Sorted(maps.Keys(functions)) {
		fn := functions[name]
		failed := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression: jsii.String("errors + throttles"),
			UsingMetrics: &map[string]awscloudwatch.IMetric{
				"errors":    fn.MetricErrors(sumOver(alarmPeriod)),
				"throttles": fn.MetricThrottles(sumOver(alarmPeriod)),
			},
			Period: period(alarmPeriod),
		})
		a.add("FunctionFailed-"+name, failed, 1, 1,
			"Function "+name+" failed (an error, a timeout or a crash) or was throttled: see its log group.")
	}
}

// alarms creates alarms in scope, named after the main stack, that
// notify one action.
type alarms struct {
	scope     constructs.Construct
	stackName string
	action    awscloudwatch.IAlarmAction
}

// add creates an alarm when metric is at or over threshold for periods
// periods in a row; a period without data is fine (an idle queue or
// function publishes nothing). The topic hears when it fires and when it
// clears.
func (a alarms) add(id string, metric awscloudwatch.IMetric, threshold float64, periods int, description string) {
	alarm := awscloudwatch.NewAlarm(a.scope, jsii.String("Alarm-"+id), &awscloudwatch.AlarmProps{
		Metric:             metric,
		AlarmName:          jsii.String(a.stackName + "-" + id),
		AlarmDescription:   jsii.String(description),
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(periods),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	alarm.AddAlarmAction(a.action)
	alarm.AddOkAction(a.action)
}

// minutes is d as an alarm's description says it.
func minutes(d time.Duration) string { return fmt.Sprintf("%.0f minutes", d.Minutes()) }

func period(d time.Duration) awscdk.Duration {
	return awscdk.Duration_Seconds(jsii.Number(d.Seconds()))
}

func maxOver(d time.Duration) *awscloudwatch.MetricOptions {
	return &awscloudwatch.MetricOptions{Period: period(d), Statistic: jsii.String("Maximum")}
}

func sumOver(d time.Duration) *awscloudwatch.MetricOptions {
	return &awscloudwatch.MetricOptions{Period: period(d), Statistic: jsii.String("Sum")}
}

// sesMetric is an account-wide SES metric (no dimension).
func sesMetric(name, statistic string, d time.Duration) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String("AWS/SES"), MetricName: jsii.String(name),
		Statistic: jsii.String(statistic), Period: period(d),
	})
}

// dashboardPeriod is the period of the dashboard's graphs.
const dashboardPeriod = 5 * time.Minute

// newDashboard creates the operator's one dashboard: the account's email
// (SES), the queues, the functions' errors and the API.
func newDashboard(scope constructs.Construct, stackName string, m monitored) {
	var email []awscloudwatch.IMetric
	for _, name := range []string{"Send", "Delivery", "Bounce", "Complaint"} {
		email = append(email, sesMetric(name, "Sum", dashboardPeriod))
	}
	var depths []awscloudwatch.IMetric
	for _, d := range queue.All {
		q := m.queues[d.Name]
		depths = append(depths,
			q.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period(dashboardPeriod), Statistic: jsii.String("Maximum"), Label: jsii.String(d.Name)}),
			q.DeadLetterQueue().Queue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: period(dashboardPeriod), Statistic: jsii.String("Maximum"), Label: jsii.String(d.DLQName())}))
	}
	var errors []awscloudwatch.IMetric
	for _, name := range slices.Sorted(maps.Keys(m.functions)) {
		errors = append(errors, m.functions[name].MetricErrors(&awscloudwatch.MetricOptions{Period: period(dashboardPeriod), Statistic: jsii.String("Sum"), Label: jsii.String(name)}))
	}
	latency := []awscloudwatch.IMetric{
		m.api.MetricLatency(&awscloudwatch.MetricOptions{Period: period(dashboardPeriod), Statistic: jsii.String("p50"), Label: jsii.String("p50")}),
		m.api.MetricLatency(&awscloudwatch.MetricOptions{Period: period(dashboardPeriod), Statistic: jsii.String("p99"), Label: jsii.String("p99")}),
	}
	graph := func(title string, left []awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(title), Left: &left, Width: jsii.Number(12), Height: jsii.Number(6),
		})
	}
	awscloudwatch.NewDashboard(scope, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(stackName + "-operations"),
		Widgets: &[]*[]awscloudwatch.IWidget{
			{graph("Email (SES, whole account): sends, deliveries, bounces, complaints", email), graph("Queue depths (visible messages)", depths)},
			{graph("Function errors", errors), graph("API latency (ms)", latency)},
		},
	})
}
