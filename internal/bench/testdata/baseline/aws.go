//go:build baseline_dynamodb || baseline_sqs || baseline_sesv2

package main

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
)

// awsConfig is loaded once, as a function loads it.
var awsConfig = sync.OnceValue(func() aws.Config {
	cfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	return cfg
})
