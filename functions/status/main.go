// Command status is the Lambda function consuming the ses-events queue: it
// moves emails through their statuses and feeds events, clicks, metrics
// and webhooks.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(statusfeed.Status) }
