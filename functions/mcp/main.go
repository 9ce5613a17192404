// Command mcp is the Lambda function serving the MCP endpoint (ANY /mcp).
package main

import (
	"github.com/sesame-mail/sesame/internal/api/mcp"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(mcp.MCP) }
