// Command check-deliverability is the Lambda function serving POST
// /api/v1/deliverability/check.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/deliverability"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(deliverability.CheckDeliverability) }
