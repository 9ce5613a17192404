package contact

import "errors"

// ErrNotFound is the contract's sentinel (docs: the audience split), here
// only until branch contacts, which owns it, is merged into unsub.
var ErrNotFound = errors.New("contact not found")
