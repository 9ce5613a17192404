//go:build baseline_sesv2

package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
)

func init() {
	clients = append(clients, func(context.Context) any { return sesv2.NewFromConfig(awsConfig()) })
}
