//go:build baseline_dynamodb || baseline_sqs || baseline_sesv2

package main

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sesame-mail/sesame/internal/api/sdk"
)

// awsConfig is loaded once, as a function loads it (sdk.Load, the
// functions' own loader).
var awsConfig = sync.OnceValue(func() aws.Config {
	cfg, err := sdk.Load(context.Background())
	if err != nil {
		panic(err)
	}
	return cfg
})
