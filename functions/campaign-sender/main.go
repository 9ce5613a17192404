// Command campaign-sender is the Lambda function consuming the sends
// queue: it sends each chunk of an approved campaign, once per recipient.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/campaigns/sender"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(sender.CampaignSender) }
