// Command list-emails is the Lambda function serving GET /api/v1/emails.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/reads"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(reads.ListEmails) }
