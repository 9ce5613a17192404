// Command list-suppressions is the Lambda function serving GET /api/v1/suppressions.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/suppressions"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(suppressions.ListSuppressions) }
