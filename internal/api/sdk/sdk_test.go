package sdk

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// lambdaEnv is what Lambda sets for a function (values made up).
func lambdaEnv() map[string]string {
	return map[string]string{
		"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "ASIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
	}
}

func TestFromEnv(t *testing.T) {
	tests := map[string]struct {
		change     map[string]string // "" removes the variable
		wantErr    error
		wantRegion string
		wantToken  string
	}{
		"lambda":                   {wantRegion: "eu-west-1", wantToken: "token"},
		"AWS_DEFAULT_REGION alone": {change: map[string]string{"AWS_REGION": ""}, wantRegion: "eu-west-1", wantToken: "token"},
		"local stack: no session token": {
			change:     map[string]string{"AWS_SESSION_TOKEN": "", "AWS_REGION": "us-east-1"},
			wantRegion: "us-east-1",
		},
		"no region":     {change: map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": ""}, wantErr: ErrNoRegion},
		"no access key": {change: map[string]string{"AWS_ACCESS_KEY_ID": ""}, wantErr: ErrNoCredentials},
		"no secret":     {change: map[string]string{"AWS_SECRET_ACCESS_KEY": ""}, wantErr: ErrNoCredentials},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			env := lambdaEnv()
			for k, v := range tc.change {
				if v == "" {
					delete(env, k)
				} else {
					env[k] = v
				}
			}
			cfg, err := fromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if cfg.Region != tc.wantRegion {
				t.Errorf("region = %q, want %q", cfg.Region, tc.wantRegion)
			}
			creds, err := cfg.Credentials.Retrieve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if creds.AccessKeyID != env["AWS_ACCESS_KEY_ID"] || creds.SecretAccessKey != "secret" || creds.SessionToken != tc.wantToken {
				t.Errorf("credentials = %+v", creds)
			}
		})
	}
}

// TestClientsFindTheirEndpoints builds the three clients the functions use
// from Load, as the local stack runs them: each must go to its emulator
// and a client without a variable to AWS.
func TestClientsFindTheirEndpoints(t *testing.T) {
	for k, v := range lambdaEnv() {
		t.Setenv(k, v)
	}
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_SESV2"} {
		t.Setenv(k, "") // restored after the test; unset during it (the suite's own emulators set them)
		os.Unsetenv(k)
	}
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:8000")
	t.Setenv("AWS_ENDPOINT_URL_SESV2", "http://127.0.0.1:8002")
	cfg, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(dynamodb.NewFromConfig(cfg).Options().BaseEndpoint); got != "http://127.0.0.1:8000" {
		t.Errorf("DynamoDB endpoint = %q", got)
	}
	if got := aws.ToString(sesv2.NewFromConfig(cfg).Options().BaseEndpoint); got != "http://127.0.0.1:8002" {
		t.Errorf("SESv2 endpoint = %q", got)
	}
	if got := sqs.NewFromConfig(cfg).Options().BaseEndpoint; got != nil {
		t.Errorf("SQS endpoint = %q, want AWS's own", *got)
	}

	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:4566") // one endpoint for all (LocalStack)
	cfg, err = Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(sqs.NewFromConfig(cfg).Options().BaseEndpoint); got != "http://127.0.0.1:4566" {
		t.Errorf("SQS endpoint under AWS_ENDPOINT_URL = %q", got)
	}
	if got := aws.ToString(dynamodb.NewFromConfig(cfg).Options().BaseEndpoint); got != "http://127.0.0.1:8000" {
		t.Errorf("DynamoDB's own variable must win over AWS_ENDPOINT_URL, got %q", got)
	}
}

// TestFunctionsLinkNoCredentialLoader holds the point of the package: a
// function links no STS, SSO or sign-in client and no shared-config
// parser.
func TestFunctionsLinkNoCredentialLoader(t *testing.T) {
	if testing.Short() {
		t.Skip("go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/sesame-mail/sesame/functions/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/config") ||
			strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/service/sts") ||
			strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/service/sso") ||
			strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/service/signin") ||
			strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/internal/ini") {
			t.Errorf("a function links %s: build the configuration with sdk.Load", pkg)
		}
	}
}
