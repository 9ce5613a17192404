package dashboard

import (
	"context"
	"errors"
)

// ownerKey keys the signed-in owner's address in a request's context.
type ownerKey struct{}

// withOwner is ctx carrying the signed-in owner's address, for the owner
// service's Approver.
func withOwner(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, ownerKey{}, s.Address)
}

// Approver is the owner service's approver on the dashboard: the
// signed-in owner who pressed Approve (owner.Approver).
type Approver struct{}

// errNoOwner is a programming error: an approval outside a signed-in
// request.
var errNoOwner = errors.New("dashboard: no signed-in owner in the request")

// Identity is the address of the request's signed-in owner.
func (Approver) Identity(ctx context.Context) (string, error) {
	if a, ok := ctx.Value(ownerKey{}).(string); ok && a != "" {
		return a, nil
	}
	return "", errNoOwner
}
