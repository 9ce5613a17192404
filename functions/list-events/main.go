// Command list-events is the Lambda function serving GET /api/v1/events.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/events"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(events.Events) }
