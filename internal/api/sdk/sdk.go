// Package sdk builds the AWS SDK configuration of a function that calls
// AWS services from what Lambda puts in its environment. It does not use
// the SDK's configuration loader: that loader links the STS, SSO, SSO-OIDC
// and sign-in clients and the shared-file parser for credentials a
// function never has (profiles, SSO, assumed roles), about 0.85 MB of
// every binary. The console (cmd/sesame), run by people, keeps the loader.
package sdk

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Lambda sets these for every function: the region it runs in and the
// execution role's credentials (the session token with them). The local
// stack and the tests set the same names (localstack/aws-env.sh).
const (
	envRegion        = "AWS_REGION"
	envDefaultRegion = "AWS_DEFAULT_REGION"
	envAccessKey     = "AWS_ACCESS_KEY_ID"
	envSecretKey     = "AWS_SECRET_ACCESS_KEY"
	envSessionToken  = "AWS_SESSION_TOKEN"
	envEndpoint      = "AWS_ENDPOINT_URL"
	// envServiceEndpoint + a client's SDK id in capitals (DYNAMODB, SQS,
	// SESV2) points that client elsewhere: the local emulators.
	envServiceEndpoint = "AWS_ENDPOINT_URL_"
)

// ErrNoRegion and ErrNoCredentials say which variable a function started
// without, so a misconfigured function fails at start, not at its first
// call.
var (
	ErrNoRegion      = errors.New("sdk: " + envRegion + " is not set")
	ErrNoCredentials = errors.New("sdk: " + envAccessKey + " and " + envSecretKey + " are not set")
)

// Load reads the SDK configuration from the environment. It makes no
// network call.
func Load(context.Context) (aws.Config, error) {
	return fromEnv(os.LookupEnv)
}

// fromEnv is Load over any environment (a table test's map).
func fromEnv(lookup func(string) (string, bool)) (aws.Config, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return v
	}
	region := get(envRegion)
	if region == "" {
		region = get(envDefaultRegion)
	}
	if region == "" {
		return aws.Config{}, ErrNoRegion
	}
	key, secret := get(envAccessKey), get(envSecretKey)
	if key == "" || secret == "" {
		return aws.Config{}, ErrNoCredentials
	}
	cfg := aws.Config{
		Region:        region,
		Credentials:   aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(key, secret, get(envSessionToken))),
		ConfigSources: []any{endpoints(lookup)},
	}
	if global := get(envEndpoint); global != "" {
		cfg.BaseEndpoint = aws.String(global)
	}
	return cfg, nil
}

// endpoints answers each client's question "where is my service?" from
// AWS_ENDPOINT_URL_<SDK ID>, as the SDK's loader does: the clients ask
// every source in aws.Config.ConfigSources that has this method.
type endpoints func(string) (string, bool)

// GetServiceBaseEndpoint is the SDK's ServiceBaseEndpointProvider.
func (lookup endpoints) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	v, _ := lookup(envServiceEndpoint + strings.ToUpper(strings.ReplaceAll(sdkID, " ", "_")))
	return v, v != "", nil
}
