package apikey

import (
	"context"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// KeyStore keeps API keys, only as hashes.
type KeyStore interface {
	CreateKey(ctx context.Context, workspaceID string, env Environment, name string, scopes []Scope) (string, Key, error)
	ListKeys(ctx context.Context, workspaceID string) ([]Key, error)
	RegenerateKey(ctx context.Context, workspaceID, keyID string) (string, Key, error)
	RevokeKey(ctx context.Context, workspaceID, keyID string) error
}

// Service manages a workspace's API keys. A key is shown once, when created
// or regenerated, and never again.
type Service struct {
	Store KeyStore
}

// KeyRequest asks for a new key.
type KeyRequest struct {
	WorkspaceID string
	Environment Environment // live or test
	Preset      Preset      // empty is full
	Scopes      []string    // the custom preset's scopes
	Name        string      // a label
}

// CreatedKey is a key in plain text, shown this once, and its record.
type CreatedKey struct {
	Key    string `json:"key"`
	Record Key    `json:"record"`
}

// Create makes a key with the scopes of the request's preset.
func (k *Service) Create(ctx context.Context, req KeyRequest) (CreatedKey, error) {
	if err := ident.RequireWorkspace(req.WorkspaceID); err != nil {
		return CreatedKey{}, err
	}
	if !req.Environment.Valid() {
		return CreatedKey{}, fail.Invalid("env", "env must be live or test")
	}
	scopes, err := Resolve(req.Preset, req.Scopes)
	if err != nil {
		return CreatedKey{}, fail.Refused("access", err)
	}
	plain, key, err := k.Store.CreateKey(ctx, req.WorkspaceID, req.Environment, req.Name, scopes)
	if err != nil {
		return CreatedKey{}, err
	}
	return CreatedKey{Key: plain, Record: key}, nil
}

// List returns the workspace's keys, revoked ones included; records carry
// hints, never keys or hashes.
func (k *Service) List(ctx context.Context, workspaceID string) ([]Key, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	keys, err := k.Store.ListKeys(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		keys = []Key{}
	}
	return keys, nil
}

// Regenerate replaces a key's secret, keeping its id and scopes; the old
// key stops working at once.
func (k *Service) Regenerate(ctx context.Context, workspaceID, keyID string) (CreatedKey, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return CreatedKey{}, err
	}
	plain, key, err := k.Store.RegenerateKey(ctx, workspaceID, keyID)
	if err != nil {
		return CreatedKey{}, err
	}
	return CreatedKey{Key: plain, Record: key}, nil
}

// Revoke stops a key at once, for good.
func (k *Service) Revoke(ctx context.Context, workspaceID, keyID string) error {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return err
	}
	return k.Store.RevokeKey(ctx, workspaceID, keyID)
}
