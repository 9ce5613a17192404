// Command add-suppressions is the Lambda function serving POST /api/v1/suppressions.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/suppressions"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(suppressions.AddSuppressions) }
