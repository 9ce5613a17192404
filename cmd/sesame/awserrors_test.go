package main

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// sdkNoise is what the SDK's own error text has and a sentence never does.
var sdkNoise = []string{"operation error", "https response error", "RequestID", "deserialization failed",
	"exceeded maximum number of attempts", "StatusCode", "api error"}

func wantSentence(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("the command succeeded")
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q\nwant it to say %q", err, want)
	}
	for _, noise := range sdkNoise {
		if strings.Contains(err.Error(), noise) {
			t.Errorf("error %q has the SDK's %q", err, noise)
		}
	}
}

// closedPort is a loopback URL where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// The AWS errors the console meets are sentences that say what went wrong
// and what to do, never the SDK's dump; they still wrap the SDK's error.
func TestConsoleAWSErrors(t *testing.T) {
	emulatortest.Require(t, "AWS_ENDPOINT_URL_SESV2")
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")

	t.Run("the local stack is down", func(t *testing.T) {
		down := closedPort(t)
		t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", down)
		_, err := c.run("workspace", "list")
		wantSentence(t, err, "could not reach DynamoDB at "+down+" (connection refused): is the local stack running? Start it with make dev")
		var op *smithy.OperationError
		if !errors.As(err, &op) {
			t.Errorf("error %v does not wrap the SDK's", err)
		}
	})
	t.Run("the SES emulator has no identity API", func(t *testing.T) {
		// What `domains add` met before the local stack kept identities:
		// the emulator answers its HTML page.
		_, err := c.run("domains", "add", "raw.example", "--workspace", ws)
		wantSentence(t, err, "did not answer CreateEmailIdentity as SES does")
		wantSentence(t, err, "the local stack's SES emulator has no identity API; source the local stack's settings, whose SESAME_LOCAL_DATA")
	})
	t.Run("access denied", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Amzn-Errortype", "AccessDeniedException")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"message":"User: arn:aws:iam::123456789012:user/ops is not authorized to perform: ses:CreateEmailIdentity"}`))
		}))
		t.Cleanup(srv.Close)
		t.Setenv("AWS_ENDPOINT_URL_SESV2", srv.URL)
		_, err := c.run("domains", "add", "denied.example", "--workspace", ws)
		wantSentence(t, err, "AWS denied CreateEmailIdentity to your credentials (AccessDeniedException): grant them the IAM permission ses:CreateEmailIdentity")
	})
	t.Run("no such table", func(t *testing.T) {
		_, err := runConsole(t, nil, "--table", "absent-"+c.name, "workspace", "list")
		wantSentence(t, err, `there is no DynamoDB table "absent-`+c.name+`" at `)
		wantSentence(t, err, "set --table or SESAME_TABLE to the stack's TableName output")
	})
	// Errors that are not AWS's are left as they are.
	_, err := c.run("workspace", "show", "00000000-0000-0000-0000-000000000000")
	if !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("err = %v, want workspace.ErrNotFound", err)
	}
}

// apiError is an SDK error of service and operation, answered with code.
func apiError(service, operation, code, msg string) error {
	return &smithy.OperationError{ServiceID: service, OperationName: operation, Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}},
			Err: &smithy.GenericAPIError{Code: code, Message: msg}},
		RequestID: "req-1",
	}}
}

func TestExplain(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
	t.Setenv("AWS_ENDPOINT_URL_SQS", "")
	t.Setenv("AWS_ENDPOINT_URL_SESV2", "https://ses.example.test")
	t.Setenv("AWS_ENDPOINT_URL", "")
	ac := awsContext{table: "sesame-Table", region: "eu-west-1"}
	cases := map[string]struct {
		err  error
		want string
	}{
		"throttled": {apiError("DynamoDB", "Query", "ProvisionedThroughputExceededException", "slow down"),
			"AWS is throttling DynamoDB Query (ProvisionedThroughputExceededException): wait a moment and retry"},
		"expired": {apiError("SQS", "SendMessage", "ExpiredToken", "The security token included in the request is expired"),
			"your AWS credentials have expired (ExpiredToken): sign in again"},
		"unknown key": {apiError("DynamoDB", "GetItem", "UnrecognizedClientException", "The security token included in the request is invalid."),
			"DynamoDB in AWS (eu-west-1) did not accept your AWS credentials (UnrecognizedClientException): check AWS_PROFILE"},
		"denied": {apiError("SQS", "SendMessage", "AccessDenied", "not authorized"),
			"AWS denied SendMessage to your credentials (AccessDenied): grant them the IAM permission sqs:SendMessage"},
		"no queue": {apiError("SQS", "SendMessage", "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist."),
			"the SQS queue does not exist in AWS (eu-west-1): set SESAME_REVIEW_QUEUE_URL to the stack's ReviewQueueUrl output"},
		"no table": {apiError("DynamoDB", "Query", "ResourceNotFoundException", "Requested resource not found"),
			`there is no DynamoDB table "sesame-Table" in AWS (eu-west-1)`},
		"a malformed table name": {apiError("DynamoDB", "Query", "ValidationException", "Invalid table/index name.  Table/index names must be between 3 and 255 characters long"),
			`DynamoDB refused the table name "sesame-Table" (Invalid table/index name.  Table/index names must be between 3 and 255 characters long): set --table or SESAME_TABLE`},
		"another refusal": {apiError("SESv2", "GetEmailIdentity", "BadRequestException", "Invalid identity."),
			"SES refused GetEmailIdentity (BadRequestException: Invalid identity)"},
		"not SES at its endpoint": {&smithy.OperationError{ServiceID: "SESv2", OperationName: "GetEmailIdentity", Err: &smithy.DeserializationError{Err: errors.New("invalid character '<'")}},
			"SES at https://ses.example.test did not answer GetEmailIdentity as SES does (its answer is not SES's format): check AWS_ENDPOINT_URL_SESV2, or unset it to reach AWS"},
		"no credentials": {&smithy.OperationError{ServiceID: "DynamoDB", OperationName: "Query", Err: errors.New("get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found")},
			"no AWS credentials were found for DynamoDB Query: set AWS_PROFILE"},
		"no region": {&aws.MissingRegionError{}, "no AWS region is set: set AWS_REGION or pass --region"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantSentence(t, explain(tc.err, ac), tc.want)
			if !errors.Is(explain(tc.err, ac), tc.err) {
				t.Error("the sentence does not wrap the SDK's error")
			}
		})
	}
	plain := errors.New("plain")
	if got := explain(plain, ac); got != plain {
		t.Errorf("explain(a non-AWS error) = %v, want it unchanged", got)
	}
}
