// Command oauth is the Lambda function serving the OAuth authorization
// server: ANY /oauth/… and its well-known metadata.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/authserver"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(authserver.AuthServer) }
