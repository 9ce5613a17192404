//go:build baseline_sqs

package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

func init() {
	clients = append(clients, func(context.Context) any { return sqs.NewFromConfig(awsConfig()) })
}
