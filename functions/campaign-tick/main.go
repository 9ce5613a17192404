// Command campaign-tick is the Lambda function an EventBridge schedule
// invokes every minute: it starts the scheduled campaigns that are due.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/campaigns/tick"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(tick.CampaignTick) }
