// Package api is the client's generated layer: the API's types and one
// low-level call per operation, generated from the OpenAPI document by a
// pinned oapi-codegen. Most callers use package sesame instead.
package api

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml -o api.gen.go ../../../internal/openapi/openapi.json
