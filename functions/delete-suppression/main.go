// Command delete-suppression is the Lambda function serving DELETE /api/v1/suppressions/{email}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/suppressions"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(suppressions.DeleteSuppression) }
