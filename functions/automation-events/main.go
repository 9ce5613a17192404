// Command automation-events is the Lambda function serving
// POST /api/v1/automations/events.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/automations"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(automations.AutomationEvents) }
