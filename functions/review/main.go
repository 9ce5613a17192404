// Command review is the Lambda function consuming the review queue: the
// quick security review of held email.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/emails/review"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(review.Review) }
