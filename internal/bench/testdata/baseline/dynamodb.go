//go:build baseline_dynamodb

package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func init() {
	clients = append(clients, func(context.Context) any { return dynamodb.NewFromConfig(awsConfig()) })
}
