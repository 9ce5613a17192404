package main

import (
	"slices"
	"strings"
	"testing"
)

// What can be checked of LocalStack mode without Docker: its template
// against what LocalStack's community image deploys (compose_test.go holds
// localstack/docker-compose.yml to the same template).

// localStackContext is what localstack/deploy-localstack.sh passes on an
// x86 host, as the CLI gives it (strings).
var localStackContext = map[string]any{contextLocalStack: "true", contextArch: archAMD64}

func synthLocalStack(t *testing.T) *synthed {
	t.Helper()
	return synthWith(t, "localstack", localStackContext)
}

// communityResourceTypes are the CloudFormation resource types LocalStack's
// community (free) image deploys: the "Community image" table of
// LocalStack's CloudFormation docs (localstack/localstack-docs,
// src/content/docs/aws/services/cloudformation.mdx, "Resources"), each
// backed by a resource provider in localstack-core
// (localstack/services/<service>/resource_providers/aws_<service>_<type>.py).
// "When utilizing the Community image, any resources within the stack that
// are not supported will be disregarded and won't be deployed": such a
// resource fails nothing at deploy time, its Ref and attributes are simply
// not there. Among the SES types only AWS::SES::EmailIdentity has a
// community provider (not in the docs' table, unused here); the
// configuration sets and their event destinations have none.
var communityResourceTypes = []string{
	"AWS::Amplify::Branch",
	"AWS::ApiGateway::Account", "AWS::ApiGateway::ApiKey", "AWS::ApiGateway::BasePathMapping",
	"AWS::ApiGateway::Deployment", "AWS::ApiGateway::DomainName", "AWS::ApiGateway::GatewayResponse",
	"AWS::ApiGateway::Method", "AWS::ApiGateway::Model", "AWS::ApiGateway::RequestValidator",
	"AWS::ApiGateway::Resource", "AWS::ApiGateway::RestApi", "AWS::ApiGateway::Stage",
	"AWS::ApiGateway::UsagePlan", "AWS::ApiGateway::UsagePlanKey",
	"AWS::AutoScaling::AutoScalingGroup", "AWS::AutoScaling::LaunchConfiguration",
	"AWS::CDK::Metadata",
	"AWS::CertificateManager::Certificate",
	"AWS::CloudFormation::Macro", "AWS::CloudFormation::Stack",
	"AWS::CloudFormation::WaitCondition", "AWS::CloudFormation::WaitConditionHandle",
	"AWS::CloudWatch::Alarm", "AWS::CloudWatch::CompositeAlarm",
	"AWS::DynamoDB::GlobalTable", "AWS::DynamoDB::Table",
	"AWS::EC2::DHCPOptions", "AWS::EC2::Instance", "AWS::EC2::InternetGateway", "AWS::EC2::KeyPair",
	"AWS::EC2::NatGateway", "AWS::EC2::NetworkAcl", "AWS::EC2::Route", "AWS::EC2::RouteTable",
	"AWS::EC2::SecurityGroup", "AWS::EC2::Subnet", "AWS::EC2::SubnetRouteTableAssociation",
	"AWS::EC2::TransitGateway", "AWS::EC2::TransitGatewayAttachment", "AWS::EC2::VPC",
	"AWS::EC2::VPCGatewayAttachment",
	"AWS::ECR::Repository",
	"AWS::Elasticsearch::Domain",
	"AWS::Events::ApiDestination", "AWS::Events::Connection", "AWS::Events::EventBus",
	"AWS::Events::EventBusPolicy", "AWS::Events::Rule",
	"AWS::IAM::AccessKey", "AWS::IAM::Group", "AWS::IAM::InstanceProfile", "AWS::IAM::ManagedPolicy",
	"AWS::IAM::Policy", "AWS::IAM::Role", "AWS::IAM::ServiceLinkedRole", "AWS::IAM::User",
	"AWS::KMS::Alias", "AWS::KMS::Key",
	"AWS::Kinesis::Stream", "AWS::Kinesis::StreamConsumer",
	"AWS::KinesisFirehose::DeliveryStream",
	"AWS::Lambda::Alias", "AWS::Lambda::CodeSigningConfig", "AWS::Lambda::EventInvokeConfig",
	"AWS::Lambda::EventSourceMapping", "AWS::Lambda::Function", "AWS::Lambda::LayerVersion",
	"AWS::Lambda::LayerVersionPermission", "AWS::Lambda::Permission", "AWS::Lambda::Url",
	"AWS::Lambda::Version",
	"AWS::Logs::LogGroup", "AWS::Logs::LogStream", "AWS::Logs::SubscriptionFilter",
	"AWS::OpenSearchService::Domain",
	"AWS::Redshift::Cluster",
	"AWS::ResourceGroups::Group",
	"AWS::Route53::HealthCheck", "AWS::Route53::RecordSet",
	"AWS::S3::Bucket", "AWS::S3::BucketPolicy",
	"AWS::SNS::Subscription", "AWS::SNS::Topic", "AWS::SNS::TopicPolicy",
	"AWS::SQS::Queue", "AWS::SQS::QueuePolicy",
	"AWS::SSM::MaintenanceWindow", "AWS::SSM::MaintenanceWindowTarget", "AWS::SSM::MaintenanceWindowTask",
	"AWS::SSM::Parameter", "AWS::SSM::PatchBaseline",
	"AWS::Scheduler::Schedule", "AWS::Scheduler::ScheduleGroup",
	"AWS::SecretsManager::ResourcePolicy", "AWS::SecretsManager::RotationSchedule",
	"AWS::SecretsManager::Secret", "AWS::SecretsManager::SecretTargetAttachment",
	"AWS::ServiceDiscovery::HttpNamespace", "AWS::ServiceDiscovery::PrivateDnsNamespace",
	"AWS::ServiceDiscovery::PublicDnsNamespace", "AWS::ServiceDiscovery::Service",
	"AWS::StepFunctions::Activity", "AWS::StepFunctions::StateMachine",
	"AWS::Timestream::Database", "AWS::Timestream::Table",
}

// localStackModeRemoves are the resource types of the AWS deployment that
// LocalStack mode leaves out, because the community image lacks them.
var localStackModeRemoves = []string{
	"AWS::CloudWatch::Dashboard",
	"AWS::Logs::MetricFilter",
	"AWS::SES::ConfigurationSet",
	"AWS::SES::ConfigurationSetEventDestination",
}

// resourceTypes is the sorted set of resource types of a template.
func resourceTypes(doc cfnTemplate) []string {
	var out []string
	for _, r := range doc.Resources {
		if !slices.Contains(out, r.Type) {
			out = append(out, r.Type)
		}
	}
	slices.Sort(out)
	return out
}

func TestLocalStackTemplateUsesOnlyCommunityResources(t *testing.T) {
	ls := synthLocalStack(t)
	for _, typ := range resourceTypes(ls.deployment()) {
		if !slices.Contains(communityResourceTypes, typ) {
			t.Errorf("LocalStack mode: %s is not deployed by LocalStack's community image", typ)
		}
	}
	// What the AWS deployment has beyond the community image is exactly
	// what LocalStack mode removes: a new resource type LocalStack lacks
	// fails here, so LocalStack mode decides what to do with it.
	var lacking []string
	for _, typ := range resourceTypes(synth(t).deployment()) {
		if !slices.Contains(communityResourceTypes, typ) {
			lacking = append(lacking, typ)
		}
	}
	if !slices.Equal(lacking, localStackModeRemoves) {
		t.Errorf("AWS deployment: types the community image lacks %v, want exactly %v (what LocalStack mode leaves out)", lacking, localStackModeRemoves)
	}
}

// references collects the logical ids that v names with Ref or GetAtt
// (pseudo parameters such as AWS::Region excluded).
func references(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if id := refTarget(v); id != "" && !strings.HasPrefix(id, "AWS::") {
			out = append(out, id)
		}
		if ga, ok := v["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			if id, ok := ga[0].(string); ok {
				out = append(out, id)
			}
		}
		for _, e := range v {
			out = append(out, references(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, references(e)...)
		}
	}
	return out
}

func TestLocalStackModeLeavesOutConfigurationSets(t *testing.T) {
	ls := synthLocalStack(t)
	for id, r := range ls.doc.Resources {
		if strings.HasPrefix(r.Type, "AWS::SES::") {
			t.Errorf("LocalStack mode: %s is an %s", id, r.Type)
		}
		// Nothing refers to a resource that is not there (a set LocalStack
		// would have skipped).
		for _, ref := range references(r.Properties) {
			if _, ok := ls.doc.Resources[ref]; !ok {
				t.Errorf("%s refers to %s, which the template does not define", id, ref)
			}
		}
	}

	ids := functionIDs(t, ls.doc)
	for name, id := range ids {
		props := ls.doc.Resources[id].Properties
		vars, _ := props["Environment"].(map[string]any)["Variables"].(map[string]any)
		for v := range vars {
			if strings.HasPrefix(v, "SESAME_CONFIG_SET_") {
				t.Errorf("%s: %s set; LocalStack mode sends without a configuration set", name, v)
			}
		}
		got, has := vars[sesv2EndpointVar]
		switch sends := functionAccess[name].SendEmail || functionAccess[name].SignInMail; {
		case sends && got != defaultSESv2Endpoint:
			t.Errorf("%s: %s = %v, want %s (the compose file's aws-ses-v2-local)", name, sesv2EndpointVar, got, defaultSESv2Endpoint)
		case !sends && has:
			t.Errorf("%s: %s set on a function that sends no email", name, sesv2EndpointVar)
		}
		for g := range functionGrants(t, ls.doc, id) {
			if strings.Contains(g, ":configuration-set") {
				t.Errorf("%s: grant %s names a configuration set", name, g)
			}
		}
	}

	// The default deployment gives no function the SES endpoint variable.
	def := synth(t)
	for name, id := range functionIDs(t, def.doc) {
		vars, _ := def.doc.Resources[id].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
		if _, ok := vars[sesv2EndpointVar]; ok {
			t.Errorf("AWS deployment: %s has %s", name, sesv2EndpointVar)
		}
	}
}

// The SES events topic is the same in LocalStack mode, without the sets
// that would publish to it: localstack/smoke.sh publishes an SES event to
// it (found by the stack's SesEventsTopicArn output) and expects the
// status function to apply it.
func TestLocalStackModeSESEventsTopic(t *testing.T) {
	ls := synthLocalStack(t)
	topic := sesEventsTopicID(t, ls.doc)
	subs := ls.doc.ofType("AWS::SNS::Subscription")
	if len(subs) != 1 {
		t.Fatalf("%d SNS subscriptions, want 1", len(subs))
	}
	for id, sub := range subs {
		p := sub.Properties
		if refTarget(p["TopicArn"]) != topic || getAttTarget(p["Endpoint"], "Arn") != queueIDs(ls.doc)["ses-events"] || p["RawMessageDelivery"] != true {
			t.Errorf("%s: %v, want the topic to the ses-events queue by raw delivery", id, p)
		}
	}
	out, _ := ls.doc.Outputs["SesEventsTopicArn"].(map[string]any)
	if refTarget(out["Value"]) != topic {
		t.Errorf("output SesEventsTopicArn = %v, want the topic's Ref", ls.doc.Outputs["SesEventsTopicArn"])
	}
	if n := len(ls.doc.ofType("AWS::SES::ConfigurationSetEventDestination")); n != 0 {
		t.Errorf("%d event destinations in LocalStack mode, want none", n)
	}
}
