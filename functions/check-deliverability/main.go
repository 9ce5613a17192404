// Command check-deliverability is the Lambda function serving POST
// /api/v1/deliverability/check.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/checks"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(checks.CheckDeliverability) }
