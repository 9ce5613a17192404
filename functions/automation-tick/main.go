// Command automation-tick is the Lambda function an EventBridge schedule
// invokes every minute: it wakes the automation runs whose wait ended.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/automations/tick"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(tick.AutomationTick) }
