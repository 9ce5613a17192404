// Command review is the Lambda function consuming the review queue: the
// quick security review of held email.
package main

import (
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/routes"
)

func main() { api.ConsumerMain(routes.Review) }
