// Command dashboard is the Lambda function serving the owner's web
// dashboard, ANY /dashboard and /dashboard/{proxy+}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/site"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(site.Dashboard) }
