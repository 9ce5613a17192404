// Command get-campaign is the Lambda function serving GET /api/v1/campaigns/{id}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/campaigns"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(campaigns.GetCampaign) }
