package main

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

func requireWorkspace(id string) error {
	if id == "" {
		return fmt.Errorf("--workspace is required")
	}
	return nil
}

// workspaceStore is the store, once --workspace is known to be given.
func (c *console) workspaceStore(ctx context.Context, workspaceID string) (*dynamo.Store, error) {
	if err := requireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	return c.dynamo(ctx)
}
