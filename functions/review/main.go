// Command review is the Lambda function consuming the review queue: the
// quick security review of held email.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/sends"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(sends.Review) }
