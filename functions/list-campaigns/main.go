// Command list-campaigns is the Lambda function serving GET /api/v1/campaigns.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/campaigns"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(campaigns.ListCampaigns) }
