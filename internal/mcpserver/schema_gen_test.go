package mcpserver

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/openapi"
)

// The tools' input schemas come from the API's OpenAPI document, so a
// tool takes exactly what its route takes: the request body's schema with
// its $refs inlined, plus the route's path and query parameters. They are
// built here, by this test, into toolschemas.json, which the server
// embeds: building them at start parsed the 230 KB document and took
// about 3.5 ms of every cold start.

var update = flag.Bool("update", false, "rewrite toolschemas.json from the OpenAPI document")

// TestToolSchemasAreCurrent holds toolschemas.json to the document: a
// route's change in openapi.json fails here until the file is rebuilt
// with `go test ./internal/mcpserver -run TestToolSchemasAreCurrent -update`.
func TestToolSchemasAreCurrent(t *testing.T) {
	var doc document
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	built := map[string]json.RawMessage{}
	for _, tl := range tools {
		schema, err := doc.inputSchema(tl)
		if err != nil {
			t.Fatal(err)
		}
		built[tl.name] = schema
	}
	want, err := json.MarshalIndent(built, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile("toolschemas.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, toolSchemasJSON) {
		t.Fatal("toolschemas.json is not what the OpenAPI document gives: go test ./internal/mcpserver -run TestToolSchemasAreCurrent -update")
	}
}

// document is the part of the OpenAPI document the schemas are built
// from.
type document struct {
	// Paths holds, per path, its operations and its path-level fields.
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas    map[string]json.RawMessage `json:"schemas"`
		Parameters map[string]parameter       `json:"parameters"`
	} `json:"components"`
}

type operation struct {
	Parameters []parameter `json:"parameters"`
}

type parameter struct {
	Ref         string          `json:"$ref"`
	Name        string          `json:"name"`
	In          string          `json:"in"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

const refPrefix = "#/components/schemas/"

// inline returns schema with every $ref to a component replaced by the
// component, so a client needs no document to read it. The document has
// no recursive schema; depth guards against one.
func (d *document) inline(schema json.RawMessage, depth int) (json.RawMessage, error) {
	if depth > 20 {
		return nil, fmt.Errorf("schema nested too deep")
	}
	var node any
	if err := json.Unmarshal(schema, &node); err != nil {
		return nil, err
	}
	out, err := d.walk(node, depth)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

func (d *document) walk(node any, depth int) (any, error) {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			name, found := strings.CutPrefix(ref, refPrefix)
			target, known := d.Components.Schemas[name]
			if !found || !known {
				return nil, fmt.Errorf("unknown $ref %q", ref)
			}
			inlined, err := d.inline(target, depth+1)
			if err != nil {
				return nil, err
			}
			var v any
			err = json.Unmarshal(inlined, &v)
			return v, err
		}
		for k, v := range n {
			w, err := d.walk(v, depth)
			if err != nil {
				return nil, err
			}
			n[k] = w
		}
		return n, nil
	case []any:
		for i, v := range n {
			w, err := d.walk(v, depth)
			if err != nil {
				return nil, err
			}
			n[i] = w
		}
		return n, nil
	}
	return node, nil
}

// inputSchema builds t's input schema from doc: the body's schema (an
// object) with the parameters added to its properties.
func (d *document) inputSchema(t tool) (json.RawMessage, error) {
	s := map[string]any{"type": "object", "additionalProperties": false}
	if t.body != "" {
		raw, ok := d.Components.Schemas[t.body]
		if !ok {
			return nil, fmt.Errorf("tool %s: no schema %s", t.name, t.body)
		}
		body, err := d.inline(raw, 0)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.name, err)
		}
		if err := json.Unmarshal(body, &s); err != nil || s["type"] != "object" {
			return nil, fmt.Errorf("tool %s: body schema %s is not an object", t.name, t.body)
		}
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	required, _ := s["required"].([]any)
	var op operation
	if raw, ok := d.Paths[t.route.Path][strings.ToLower(t.route.Method)]; ok {
		if err := json.Unmarshal(raw, &op); err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.name, err)
		}
	}
	params := map[string]parameter{}
	for _, p := range op.Parameters {
		if p.Ref != "" {
			p = d.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
		}
		params[p.In+":"+p.Name] = p
	}
	add := func(in, name string) error {
		p, ok := params[in+":"+name]
		if !ok {
			return fmt.Errorf("tool %s: route has no %s parameter %s", t.name, in, name)
		}
		schema, err := d.inline(p.Schema, 0)
		if err != nil {
			return err
		}
		var prop map[string]any
		if err := json.Unmarshal(schema, &prop); err != nil {
			return err
		}
		if p.Description != "" {
			prop["description"] = p.Description
		}
		props[name] = prop
		return nil
	}
	for _, name := range t.path {
		if err := add("path", name); err != nil {
			return nil, err
		}
		required = append(required, name)
	}
	for _, name := range t.query {
		if err := add("query", name); err != nil {
			return nil, err
		}
	}
	if t.idempotent {
		props[idempotencyArg] = map[string]any{"type": "string", "minLength": 1, "maxLength": 255,
			"description": "Sent as the Idempotency-Key header: a retry with the same key sends nothing twice."}
	}
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
	return json.Marshal(s)
}
