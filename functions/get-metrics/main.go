// Command get-metrics is the Lambda function serving GET /api/v1/metrics.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/metrics"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(metrics.Metrics) }
