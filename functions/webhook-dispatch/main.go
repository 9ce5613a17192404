// Command webhook-dispatch is the Lambda function consuming the webhooks
// queue: it POSTs each event, signed, to its endpoint and schedules retries.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/webhookdispatch"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(webhookdispatch.WebhookDispatch) }
