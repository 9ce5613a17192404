package mcpserver

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// toolSchemasJSON holds each tool's input schema by tool name, built from
// the OpenAPI document by TestToolSchemasAreCurrent.
//
//go:embed toolschemas.json
var toolSchemasJSON []byte

// toolSchemas reads the embedded schemas.
func toolSchemas() (map[string]json.RawMessage, error) {
	var out map[string]json.RawMessage
	if err := json.Unmarshal(toolSchemasJSON, &out); err != nil {
		return nil, fmt.Errorf("mcp: read the tools' schemas: %w", err)
	}
	return out, nil
}
