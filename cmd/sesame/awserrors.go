package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/devstack"
)

// awsError is an AWS failure told as a sentence: what went wrong, and what
// to do. It wraps the SDK's error, whose text (operation, status, request
// id, retries) is no help on a terminal.
type awsError struct {
	sentence string
	err      error
}

func (e *awsError) Error() string { return e.sentence }
func (e *awsError) Unwrap() error { return e.err }

// awsContext is what the console knows that a sentence can name.
type awsContext struct {
	table  string
	region string
}

// services names each SDK service as a person would, with its IAM
// prefix and the variable that points the SDK at another endpoint.
var services = map[string]struct{ name, iam, endpointVar string }{
	"DynamoDB": {"DynamoDB", "dynamodb", "AWS_ENDPOINT_URL_DYNAMODB"},
	"SESv2":    {"SES", "ses", "AWS_ENDPOINT_URL_SESV2"},
	"SQS":      {"SQS", "sqs", "AWS_ENDPOINT_URL_SQS"},
}

// API error codes by what they mean for the operator.
var (
	deniedCodes = []string{"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "NotAuthorized", "AuthorizationError"}
	badKeyCodes = []string{"UnrecognizedClientException", "InvalidClientTokenId", "InvalidSignatureException",
		"SignatureDoesNotMatch", "IncompleteSignature", "MissingAuthenticationToken", "MissingAuthenticationTokenException", "InvalidAccessKeyId"}
	expiredCodes = []string{"ExpiredToken", "ExpiredTokenException", "RequestExpired", "TokenRefreshRequired"}
	noQueueCodes = []string{"AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"}
)

// explain turns an AWS SDK error into an *awsError; any other error is
// returned as it is.
func explain(err error, ac awsContext) error {
	if err == nil {
		return nil
	}
	if sentence := explainAWS(err, ac); sentence != "" {
		return &awsError{sentence: sentence, err: err}
	}
	return err
}

func explainAWS(err error, ac awsContext) string {
	var missingRegion *aws.MissingRegionError
	if errors.As(err, &missingRegion) {
		return "no AWS region is set: set AWS_REGION or pass --region (the region the stack is deployed in)"
	}
	var op *smithy.OperationError
	if !errors.As(err, &op) {
		return ""
	}
	svc, ok := services[op.ServiceID]
	if !ok {
		svc.name, svc.iam = op.ServiceID, strings.ToLower(op.ServiceID)
	}
	where, local := endpointOf(svc.endpointVar, ac.region)
	action := svc.iam + ":" + op.OperationName
	var apiErr smithy.APIError
	var deser *smithy.DeserializationError
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("%s %s was interrupted", svc.name, op.OperationName)
	case isCredentialsError(err):
		return fmt.Sprintf("no AWS credentials were found for %s %s: set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), "+
			"or, for the local stack, source its settings: set -a; . .sesame/dev.env; set +a", svc.name, op.OperationName)
	case errors.As(err, &deser):
		return notTheService(svc.name, op.OperationName, where, local, svc.endpointVar)
	case errors.As(err, &apiErr):
		return explainAPI(apiErr, svc.name, op.OperationName, action, where, ac)
	}
	if cause := unreachable(err); cause != "" {
		if local {
			return fmt.Sprintf("could not reach %s %s (%s): is the local stack running? Start it with make dev (or make dev-up)", svc.name, where, cause)
		}
		return fmt.Sprintf("could not reach %s %s (%s): check your network, AWS_REGION and %s", svc.name, where, cause, svc.endpointVar)
	}
	return fmt.Sprintf("%s %s failed %s: %s", svc.name, op.OperationName, where, innermost(err))
}

// explainAPI is the sentence of an error that the service answered.
func explainAPI(apiErr smithy.APIError, name, operation, action, where string, ac awsContext) string {
	code, msg := apiErr.ErrorCode(), strings.TrimSuffix(apiErr.ErrorMessage(), ".")
	switch {
	case oneOf(code, deniedCodes):
		return fmt.Sprintf("AWS denied %s to your credentials (%s): grant them the IAM permission %s, or use a profile that has it (AWS_PROFILE)", operation, code, action)
	case oneOf(code, badKeyCodes):
		return fmt.Sprintf("%s %s did not accept your AWS credentials (%s): check AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (aws configure list shows which are used)", name, where, code)
	case oneOf(code, expiredCodes):
		return fmt.Sprintf("your AWS credentials have expired (%s): sign in again (e.g. aws sso login) and retry", code)
	case retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(apiErr) == aws.TrueTernary: // the SDK's own list
		return fmt.Sprintf("AWS is throttling %s %s (%s): wait a moment and retry", name, operation, code)
	case oneOf(code, noQueueCodes):
		return fmt.Sprintf("the SQS queue does not exist %s: set SESAME_REVIEW_QUEUE_URL to the stack's ReviewQueueUrl output (or, locally, source .sesame/dev.env of the running stack)", where)
	case code == "ResourceNotFoundException" && name == "DynamoDB":
		return fmt.Sprintf("there is no DynamoDB table %q %s: set --table or SESAME_TABLE to the stack's TableName output (locally, source .sesame/dev.env)", ac.table, where)
	case code == "ValidationException" && name == "DynamoDB" && strings.Contains(msg, "table"):
		return fmt.Sprintf("DynamoDB refused the table name %q (%s): set --table or SESAME_TABLE to the stack's TableName output", ac.table, msg)
	}
	if msg == "" {
		msg = "no detail given"
	}
	return fmt.Sprintf("%s refused %s (%s: %s)", name, operation, code, msg)
}

// notTheService explains an answer the SDK could not read: something other
// than the service answered at its endpoint.
func notTheService(name, operation, where string, local bool, endpointVar string) string {
	s := fmt.Sprintf("%s %s did not answer %s as %s does (its answer is not %s's format)", name, where, operation, name, name)
	switch {
	case name == "SES" && local && strings.Contains(operation, "Identit"):
		return s + fmt.Sprintf(": the local stack's SES emulator has no identity API; source the local stack's settings, "+
			"whose %s makes the console keep its identities: set -a; . .sesame/dev.env; set +a", devstack.DataEnv)
	case local:
		return s + fmt.Sprintf(": is %s the local stack's %s emulator? Source .sesame/dev.env of the running stack", endpointVar, name)
	}
	return s + fmt.Sprintf(": check %s, or unset it to reach AWS", endpointVar)
}

// endpointOf says where a service is reached: "at URL" when its variable
// (or AWS_ENDPOINT_URL) points the SDK elsewhere, else "in AWS (REGION)";
// local is true for a loopback endpoint.
func endpointOf(endpointVar, region string) (where string, local bool) {
	if u := endpointURL(endpointVar); u != "" {
		return "at " + u, isLoopbackURL(u)
	}
	if region == "" {
		region = os.Getenv("AWS_REGION")
	}
	if region == "" {
		return "in AWS", false
	}
	return "in AWS (" + region + ")", false
}

// unreachable names why a request never got an answer, or "".
func unreachable(err error) string {
	var dns *net.DNSError
	var opErr *net.OpError
	var urlErr *url.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns):
		return "no such host " + dns.Name
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &opErr) && opErr.Timeout():
		return "timed out"
	case errors.As(err, &opErr):
		return opErr.Err.Error()
	case errors.As(err, &urlErr):
		return urlErr.Err.Error()
	}
	return ""
}

// isCredentialsError reports a failure to find credentials, which the SDK
// gives as text only.
func isCredentialsError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "get credentials:") || strings.Contains(s, "failed to refresh cached credentials") ||
		strings.Contains(s, "failed to retrieve credentials")
}

// innermost is the text of the deepest error in err's chain.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func oneOf(code string, codes []string) bool { return slices.Contains(codes, code) }

// explainErrors makes every command of cmd's tree tell the AWS errors it
// meets as sentences (explain).
func (c *console) explainErrors(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		c.explainErrors(sub)
	}
	run := cmd.RunE
	if run == nil {
		return
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ac := awsContext{table: c.cfg.Table, region: c.cfg.Region}
		if c.awsCfg != nil {
			ac.region = c.awsCfg.Region
		}
		return explain(run(cmd, args), ac)
	}
}
