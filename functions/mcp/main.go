// Command mcp is the Lambda function serving the MCP endpoint (ANY /mcp).
package main

import (
	"github.com/sesame-mail/sesame/internal/api/agents"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(agents.MCP) }
