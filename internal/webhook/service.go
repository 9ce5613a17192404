package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// EndpointStore keeps a workspace's webhook endpoints and their secrets.
type EndpointStore interface {
	CreateEndpoint(ctx context.Context, ep Endpoint) error
	GetEndpoint(ctx context.Context, workspaceID, id string) (Endpoint, error)
	ListEndpoints(ctx context.Context, workspaceID string) ([]Endpoint, error)
	// SetEndpointEnabled enables (clearing the failure count and reason)
	// or disables an endpoint.
	SetEndpointEnabled(ctx context.Context, workspaceID, id string, enabled bool, reason string) (Endpoint, error)
	DeleteEndpoint(ctx context.Context, workspaceID, id string) error
	// RotateEndpointSecret makes secret the signing secret; the secret in
	// use until now signs beside it until previousUntil.
	RotateEndpointSecret(ctx context.Context, workspaceID, id, secret string, previousUntil time.Time) (Endpoint, error)
}

// AttemptLister reads an endpoint's delivery attempts, newest first.
type AttemptLister interface {
	ListAttempts(ctx context.Context, workspaceID, endpointID string, limit int) ([]Attempt, error)
}

// Service manages a workspace's webhook endpoints.
type Service struct {
	Endpoints EndpointStore
	Attempts  AttemptLister
	// EmailAttempts finds an email's attempts (DeliveriesOf).
	EmailAttempts EmailAttemptReader
	// Now is the clock a rotation's overlap starts from; nil is time.Now.
	Now func() time.Time
}

// EndpointRequest asks for an endpoint.
type EndpointRequest struct {
	WorkspaceID string
	URL         string
	Events      []string // event types; none is all of them
	// AllowInsecureHTTP admits http:// and loopback URLs, for local
	// development only.
	AllowInsecureHTTP bool
}

// MaxDeliveries bounds one read of an endpoint's delivery log.
const MaxDeliveries = 1000

// Add creates an enabled endpoint with a fresh signing secret (in the
// returned endpoint; it stays retrievable with Secret).
func (w *Service) Add(ctx context.Context, req EndpointRequest) (Endpoint, error) {
	if err := ident.RequireWorkspace(req.WorkspaceID); err != nil {
		return Endpoint{}, err
	}
	if req.URL == "" {
		return Endpoint{}, fail.Invalid("url", "url is required")
	}
	ep, err := NewEndpoint(req.WorkspaceID, req.URL, req.Events, req.AllowInsecureHTTP)
	switch {
	case errors.Is(err, ErrUnknownEventType):
		return Endpoint{}, fail.Refused("events", err)
	case errors.Is(err, ErrInvalidURL):
		return Endpoint{}, fail.Refused("url", err)
	case err != nil:
		return Endpoint{}, err
	}
	if err := w.Endpoints.CreateEndpoint(ctx, ep); err != nil {
		return Endpoint{}, err
	}
	return ep, nil
}

// Secret returns an endpoint's signing secret.
func (w *Service) Secret(ctx context.Context, workspaceID, id string) (string, error) {
	ep, err := w.get(ctx, workspaceID, id)
	if err != nil {
		return "", err
	}
	return ep.Secret, nil
}

// RotateSecret gives an endpoint a fresh signing secret and returns it, to
// be shown once (it stays retrievable with Secret). For
// RotationOverlap (24 h) the secret in use until now still signs
// every delivery beside the new one, so a receiver switches without
// refusing an event; Endpoint tells until when. Rotating again within the
// overlap makes the secret in use just before it the old one: the one an
// earlier rotation replaced stops signing.
func (w *Service) RotateSecret(ctx context.Context, workspaceID, id string) (string, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return "", err
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	secret := NewSecret()
	if _, err := w.Endpoints.RotateEndpointSecret(ctx, workspaceID, id, secret, now().Add(RotationOverlap)); err != nil {
		return "", fmt.Errorf("endpoint %s: %w", id, err)
	}
	return secret, nil
}

// Endpoint returns one endpoint of the workspace (its secrets are read
// with Secret; PreviousSecretUntil says until when a rotation's old secret
// signs).
func (w *Service) Endpoint(ctx context.Context, workspaceID, id string) (Endpoint, error) {
	return w.get(ctx, workspaceID, id)
}

// List returns the workspace's endpoints; callers show them without their
// secrets.
func (w *Service) List(ctx context.Context, workspaceID string) ([]Endpoint, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	eps, err := w.Endpoints.ListEndpoints(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if eps == nil {
		eps = []Endpoint{}
	}
	return eps, nil
}

// Enable enables an endpoint again and clears its failure count.
func (w *Service) Enable(ctx context.Context, workspaceID, id string) (Endpoint, error) {
	return w.setEnabled(ctx, workspaceID, id, true)
}

// Disable stops an endpoint's deliveries, the owner named as the reason.
func (w *Service) Disable(ctx context.Context, workspaceID, id string) (Endpoint, error) {
	return w.setEnabled(ctx, workspaceID, id, false)
}

func (w *Service) setEnabled(ctx context.Context, workspaceID, id string, enabled bool) (Endpoint, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Endpoint{}, err
	}
	ep, err := w.Endpoints.SetEndpointEnabled(ctx, workspaceID, id, enabled, OwnerDisableReason)
	if err != nil {
		return Endpoint{}, fmt.Errorf("endpoint %s: %w", id, err)
	}
	return ep, nil
}

// Remove deletes an endpoint; its pending deliveries are dropped.
func (w *Service) Remove(ctx context.Context, workspaceID, id string) error {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return err
	}
	if err := w.Endpoints.DeleteEndpoint(ctx, workspaceID, id); err != nil {
		return fmt.Errorf("endpoint %s: %w", id, err)
	}
	return nil
}

// Deliveries returns up to limit (1 to MaxDeliveries) of the endpoint's
// delivery attempts, newest first.
func (w *Service) Deliveries(ctx context.Context, workspaceID, id string, limit int) ([]Attempt, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if limit < 1 || limit > MaxDeliveries {
		return nil, fail.Invalid("limit", "limit must be 1 to %d", MaxDeliveries)
	}
	// Another workspace's endpoint (or none) is not found, never an empty log.
	if _, err := w.get(ctx, workspaceID, id); err != nil {
		return nil, err
	}
	attempts, err := w.Attempts.ListAttempts(ctx, workspaceID, id, limit)
	if err != nil {
		return nil, err
	}
	if attempts == nil {
		attempts = []Attempt{}
	}
	return attempts, nil
}

func (w *Service) get(ctx context.Context, workspaceID, id string) (Endpoint, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Endpoint{}, err
	}
	ep, err := w.Endpoints.GetEndpoint(ctx, workspaceID, id)
	if err != nil {
		return Endpoint{}, fmt.Errorf("endpoint %s: %w", id, err)
	}
	return ep, nil
}
