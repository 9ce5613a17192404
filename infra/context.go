package main

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// The context keys the app reads, set with `cdk synth -c KEY=VALUE` (or
// cdklocal; localstack/deploy-localstack.sh passes them).
const (
	// contextArch is the instruction set of the function binaries: arm64
	// (the default, as `make build` builds them) or amd64 (`make build
	// ARCH=amd64`). LocalStack runs each function in a Docker container of
	// the function's architecture, so on an x86 host arm64 functions need
	// qemu's binfmt emulation; amd64 runs natively there.
	contextArch = "arch"
	// contextLocalStack, when true, deploys into community LocalStack
	// (deployOptions.localStack).
	contextLocalStack = "localstack"
	// contextSESv2Endpoint is where functions send their SES v2 calls in
	// LocalStack mode; defaultSESv2Endpoint if unset.
	contextSESv2Endpoint = "sesv2Endpoint"
	// contextPublicURL is where recipients reach the stack when a custom
	// domain fronts the API (https, no trailing path needed); unset, the
	// stage's execute-api URL (publicURL).
	contextPublicURL = "publicUrl"
	// contextDashboardFrom is the From address of the dashboard's sign-in
	// emails (an address of a domain verified in SES); unset, the
	// dashboard cannot send sign-in links until it is set.
	contextDashboardFrom = "dashboardFrom"
	// contextAlertEmail is an address subscribed to the alarms topic
	// (newMonitoring); unset, the topic has no subscriber.
	contextAlertEmail = "alertEmail"
)

// Function architectures, as `make build ARCH=…` and GOARCH name them.
const (
	archARM64 = "arm64"
	archAMD64 = "amd64"
)

// deployOptions are the app's context choices.
//
// localStack is LocalStack mode, for LocalStack's free (community) image
// (infra/localstack.go):
//   - no SES configuration sets: its CloudFormation has no provider for
//     AWS::SES::ConfigurationSet or ConfigurationSetEventDestination and
//     skips them, so their Refs (the set names the functions would send
//     with) resolve to nothing usable. The functions get no
//     SESAME_CONFIG_SET_* variables and send without a configuration set
//     (internal/ses leaves ConfigurationSetName unset for an empty name).
//   - SES v2 calls go to sesv2Endpoint (aws-ses-v2-local): community
//     LocalStack answers the SES v2 API with 501.
//   - the SES events topic and its subscription are there without the
//     sets, so an SES event published to the topic by hand
//     (localstack/smoke.sh) reaches the status function as in AWS.
type deployOptions struct {
	arch          string
	localStack    bool
	sesv2Endpoint string
	publicURL     string
	dashboardFrom string
	alertEmail    string
}

// deployOptionsOf reads the context of scope (the app or the stack).
func deployOptionsOf(scope constructs.Construct) (deployOptions, error) {
	opts := deployOptions{arch: archARM64}
	if v, ok, err := contextString(scope, contextArch); err != nil {
		return opts, err
	} else if ok {
		if v != archARM64 && v != archAMD64 {
			return opts, fmt.Errorf("context %s=%q: want %s or %s", contextArch, v, archARM64, archAMD64)
		}
		opts.arch = v
	}
	if v, ok, err := contextString(scope, contextLocalStack); err != nil {
		return opts, err
	} else if ok {
		switch strings.ToLower(v) {
		case "true":
			opts.localStack = true
		case "false":
		default:
			return opts, fmt.Errorf("context %s=%q: want true or false", contextLocalStack, v)
		}
	}
	if v, ok, err := contextString(scope, contextPublicURL); err != nil {
		return opts, err
	} else if ok {
		if err := unsubscribe.CheckBaseURL(v); err != nil {
			return opts, fmt.Errorf("context %s: %w", contextPublicURL, err)
		}
		opts.publicURL = strings.TrimSuffix(v, "/")
	}
	if v, ok, err := contextString(scope, contextDashboardFrom); err != nil {
		return opts, err
	} else if ok {
		opts.dashboardFrom = v
	}
	if v, ok, err := contextString(scope, contextAlertEmail); err != nil {
		return opts, err
	} else if ok {
		// A bare address: SNS's email protocol takes nothing else.
		if a, err := mail.ParseAddress(v); err != nil || a.Address != v {
			return opts, fmt.Errorf("context %s=%q: want an email address such as ops@example.com", contextAlertEmail, v)
		}
		opts.alertEmail = v
	}
	v, ok, err := contextString(scope, contextSESv2Endpoint)
	switch {
	case err != nil:
		return opts, err
	case ok && !opts.localStack:
		return opts, fmt.Errorf("context %s applies only with -c %s=true", contextSESv2Endpoint, contextLocalStack)
	case ok:
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return opts, fmt.Errorf("context %s=%q: want an http(s) URL", contextSESv2Endpoint, v)
		}
		opts.sesv2Endpoint = v
	case opts.localStack:
		opts.sesv2Endpoint = defaultSESv2Endpoint
	}
	return opts, nil
}

// contextString is the context value of key as text: the CLI's -c gives
// strings, cdk.json may give booleans.
func contextString(scope constructs.Construct, key string) (string, bool, error) {
	switch v := scope.Node().TryGetContext(jsii.String(key)).(type) {
	case nil:
		return "", false, nil
	case string:
		return v, true, nil
	case bool:
		return fmt.Sprint(v), true, nil
	default:
		return "", false, fmt.Errorf("context %s: %v is not a string", key, v)
	}
}

// lambdaArchitecture is the Lambda architecture of arch (contextArch).
func lambdaArchitecture(arch string) awslambda.Architecture {
	if arch == archAMD64 {
		return awslambda.Architecture_X86_64()
	}
	return awslambda.Architecture_ARM_64()
}
