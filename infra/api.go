package main

import (
	"encoding/json"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
)

const (
	logRetention      = awslogs.RetentionDays_ONE_MONTH
	stageName         = "prod"
	throttleRateLimit = 100 // requests per second, whole stage
	throttleBurst     = 200
)

// newRestAPI creates the REST API, its stage (access logs, throttle) and the
// gateway responses that answer in Sesame's error envelope.
func newRestAPI(stack awscdk.Stack) awsapigateway.RestApi {
	accessLogs := awslogs.NewLogGroup(stack, jsii.String("ApiAccessLogs"), &awslogs.LogGroupProps{
		Retention: logRetention,
	})
	api := awsapigateway.NewRestApi(stack, jsii.String("Api"), &awsapigateway.RestApiProps{
		RestApiName: jsii.String(*stack.StackName() + "-api"),
		Description: jsii.String("Sesame public API (/api/v1)"),
		// Clients are servers, not browsers around the world: no CloudFront.
		EndpointTypes: &[]awsapigateway.EndpointType{awsapigateway.EndpointType_REGIONAL},
		// Access logging needs the account-wide API Gateway CloudWatch role.
		// Retained: other APIs in the account may rely on it after this
		// stack is gone.
		CloudWatchRole:              jsii.Bool(true),
		CloudWatchRoleRemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		DeployOptions: &awsapigateway.StageOptions{
			StageName:            jsii.String(stageName),
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(accessLogs),
			AccessLogFormat:      awsapigateway.AccessLogFormat_Custom(jsii.String(accessLogFormat())),
			TracingEnabled:       jsii.Bool(false),
			// Execution logs with data trace would log request bodies
			// (message content, attachments): never.
			DataTraceEnabled: jsii.Bool(false),
			LoggingLevel:     awsapigateway.MethodLoggingLevel_OFF,
			// A coarse guard for the whole stage; per-key limits (1,000 per
			// minute) are enforced by the application.
			ThrottlingRateLimit:  jsii.Number(throttleRateLimit),
			ThrottlingBurstLimit: jsii.Number(throttleBurst),
		},
	})
	addGatewayResponses(api)
	suppress(api, "AwsSolutions-APIG2", "Each function validates its request against the contract and answers in the spec's "+
		"error envelope naming the bad param; API Gateway's validator would answer without it.")
	suppress(api, "AwsSolutions-APIG6", "Access logs are on (one JSON line a request). Execution logs are off: "+
		"they bill CloudWatch Logs for several lines a request and, with data trace, would hold message content.")
	suppress(api, "AwsSolutions-IAM4", "API Gateway's account-wide logging role (CloudWatchRole) takes the managed policy "+
		"API Gateway documents for it, limited to writing logs.",
		"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs")
	return api
}

// apiAuthorization is why no method has an API Gateway authorizer.
const apiAuthorization = "Each /api/v1 function authenticates its API key itself: the key's hash is read with its rate limit " +
	"in one DynamoDB round trip (an authorizer would add an invocation and a read). The dashboard checks its session cookie; " +
	"unsubscribe links and the OpenAPI document are public by the spec. Cognito holds users, not API keys."

// accessLogFormat is one JSON object per request with the fields of
// sizing.AccessLogFields. Every value is quoted: API Gateway writes "-"
// for a missing value, which would break bare numbers.
func accessLogFormat() string {
	b, err := json.Marshal(sizing.AccessLogFields)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return string(b)
}

// addRoute mounts fn at r.Method r.Path. ResourceForPath reuses the
// resources of a shared prefix (/api/v1/emails for /api/v1/emails/{id}).
func addRoute(api awsapigateway.RestApi, r routes.Route, fn awslambda.Function) {
	integration := awsapigateway.NewLambdaIntegration(fn, &awsapigateway.LambdaIntegrationOptions{
		Proxy: jsii.Bool(true),
		// One invoke permission per function, for any stage, method and
		// path of this API (console test invokes included), rather than one
		// per method (a route and its path's ANY): the stack stays far from
		// CloudFormation's 500-resource limit as routes grow. CDK adds it
		// once however many methods fn serves.
		ScopePermissionToMethod: jsii.Bool(false),
	})
	method := api.Root().ResourceForPath(jsii.String(strings.TrimPrefix(r.Path, "/"))).
		AddMethod(jsii.String(r.Method), integration, nil)
	suppress(method, "AwsSolutions-APIG4", apiAuthorization)
	suppress(method, "AwsSolutions-COG4", apiAuthorization)
}

// gatewayError is a response API Gateway produces itself (no Lambda ran),
// rendered in the same envelope as the application's errors.
type gatewayError struct {
	id         string
	typ        func() awsapigateway.ResponseType // a constructor, so no jsii call runs at init
	statusCode string                            // "" keeps API Gateway's own status
	code       string
	message    string
	headers    map[string]string
}

// gatewayErrors lists the gateway responses Sesame overrides.
var gatewayErrors = []gatewayError{
	{id: "Default4XX", typ: awsapigateway.ResponseType_DEFAULT_4XX,
		code: "invalid_request", message: "the request was rejected before reaching the service"},
	{id: "Default5XX", typ: awsapigateway.ResponseType_DEFAULT_5XX,
		code: "internal_error", message: "internal error; retry later"},
	{id: "RequestTooLarge", typ: awsapigateway.ResponseType_REQUEST_TOO_LARGE, statusCode: "413",
		code: "message_too_large", message: "request body exceeds the 10 MB gateway limit"},
	{id: "Throttled", typ: awsapigateway.ResponseType_THROTTLED, statusCode: "429",
		code: "rate_limited", message: "too many requests; retry after the Retry-After delay",
		headers: map[string]string{"Retry-After": "'1'"}},
	{id: "Unauthorized", typ: awsapigateway.ResponseType_UNAUTHORIZED, statusCode: "401",
		code: "unauthorized", message: "missing or invalid API key"},
	// API Gateway answers an unknown path or method with 403 "Missing
	// Authentication Token"; to a client it is a route that does not exist.
	{id: "MissingAuthToken", typ: awsapigateway.ResponseType_MISSING_AUTHENTICATION_TOKEN, statusCode: "404",
		code: "not_found", message: "no such route"},
	{id: "AccessDenied", typ: awsapigateway.ResponseType_ACCESS_DENIED, statusCode: "403",
		code: "access_denied", message: "access denied"},
}

// errorEnvelope is the spec's error body; request_id is filled in by API
// Gateway from $context (templates of gateway responses substitute
// $context variables).
func errorEnvelope(code, message string) string {
	type body struct {
		Code      string  `json:"code"`
		Message   string  `json:"message"`
		Param     *string `json:"param"`
		RequestID string  `json:"request_id"`
	}
	b, err := json.Marshal(map[string]body{"error": {
		Code: code, Message: message, RequestID: "$context.requestId",
	}})
	if err != nil {
		panic(err) // plain strings always marshal
	}
	return string(b)
}

func addGatewayResponses(api awsapigateway.RestApi) {
	for _, g := range gatewayErrors {
		// A bare context.requestId is a mapping expression; quoted values
		// ('1') are literals.
		headers := map[string]*string{"X-Request-Id": jsii.String("context.requestId")}
		for k, v := range g.headers {
			headers[k] = jsii.String(v)
		}
		api.AddGatewayResponse(jsii.String(g.id), &awsapigateway.GatewayResponseOptions{
			Type:            g.typ(),
			StatusCode:      optional(g.statusCode),
			ResponseHeaders: &headers,
			Templates: &map[string]*string{
				"application/json": jsii.String(errorEnvelope(g.code, g.message)),
			},
		})
	}
}

// publicURL is where recipients reach the stack, the base of unsubscribe
// links: the context's publicUrl (a custom domain in front of the API), or
// the stage's own URL built from the RestApi id, region and stage name.
// Not api.Url(): that names the deployment stage, which depends on every
// method and so on every function; a function given it would depend on
// itself. The RestApi depends on nothing.
func publicURL(stack awscdk.Stack, api awsapigateway.RestApi, opts deployOptions) *string {
	if opts.publicURL != "" {
		return jsii.String(opts.publicURL)
	}
	return awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("https://"), api.RestApiId(), jsii.String(".execute-api."), stack.Region(),
		jsii.String("."), stack.UrlSuffix(), jsii.String("/" + stageName),
	})
}
