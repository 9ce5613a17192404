// Command baseline is what a function's start is measured against: a
// Lambda binary that only loads the AWS configuration and builds the SDK
// clients the function uses (chosen by build tags: baseline_dynamodb,
// baseline_sqs, baseline_sesv2), then starts.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

// clients build the SDK clients of the tags given.
var clients []func(ctx context.Context) any

func main() {
	ctx := context.Background()
	built := make([]any, 0, len(clients))
	for _, c := range clients {
		built = append(built, c(ctx))
	}
	lambda.StartWithOptions(func(context.Context) (int, error) { return len(built), nil }, lambda.WithContext(ctx))
}
