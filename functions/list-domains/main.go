// Command list-domains is the Lambda function serving GET /api/v1/domains.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/domains"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(domains.Domains) }
