// Command add-suppressions is the Lambda function serving POST /api/v1/suppressions.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/reads"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(reads.AddSuppressions) }
