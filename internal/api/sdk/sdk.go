// Package sdk loads the AWS SDK configuration of a function that calls
// AWS services. It is apart from wire so that a function that calls none
// does not link the configuration loader (and the STS, SSO and sign-in
// clients it brings).
package sdk

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
)

// Load reads the SDK configuration from the environment: region,
// credentials, AWS_ENDPOINT_URL_<SERVICE> (the local stack). Credentials
// are fetched on the first call, so loading makes no network call.
func Load(ctx context.Context) (aws.Config, error) {
	return awsconfig.LoadDefaultConfig(ctx)
}
