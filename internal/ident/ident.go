// Package ident reads the ids clients give (emails, contacts, campaigns,
// runs, endpoints): a UUID only in its canonical 36-character form.
package ident

import (
	"errors"

	"github.com/sesame-mail/sesame/internal/fail"

	"github.com/google/uuid"
)

// ErrNotUUID is an id not in the canonical form.
var ErrNotUUID = errors.New("not a UUID in its canonical form")

// Parse reads a canonical UUID (hyphenated, in either case). The other
// spellings uuid.Parse accepts ({…}, urn:uuid:…, without hyphens) are
// refused: one record has one id.
func Parse(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.UUID{}, ErrNotUUID
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.UUID{}, ErrNotUUID
	}
	return id, nil
}

// RequireWorkspace refuses an action on no workspace: a store would read
// an empty id as an absent workspace, or act outside every one.
func RequireWorkspace(id string) error {
	if id == "" {
		return fail.Missing("workspace")
	}
	return nil
}
