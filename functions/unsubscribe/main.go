// Command unsubscribe is the Lambda function serving the public
// unsubscribe pages, GET and POST /unsubscribe/{token}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/pages"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(pages.Unsubscribe) }
