// Command create-segment is the Lambda function serving POST /api/v1/segments.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/segments"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(segments.CreateSegment) }
