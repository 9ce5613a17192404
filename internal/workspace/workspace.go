// Package workspace is the tenant of Sesame: every key, email and setting
// belongs to exactly one workspace.
package workspace

import (
	"errors"
	"time"
)

// Workspace is one tenant.
type Workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// ErrNotFound is returned for a workspace that does not exist.
var ErrNotFound = errors.New("workspace not found")
