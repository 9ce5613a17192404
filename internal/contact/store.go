package contact

import "context"

// Filter narrows a list of contacts; zero fields do not filter.
type Filter struct {
	Email      string // exact, normalized
	Subscribed *bool
	Tag        string
}

// Store keeps a workspace's contacts, the email unique among them.
type Store interface {
	// CreateContact stores a new contact; ErrExists when its email is taken.
	CreateContact(ctx context.Context, c Contact) error
	GetContact(ctx context.Context, workspaceID, id string) (Contact, error)
	// UpdateContact applies p (checked) to the contact; ErrExists when p
	// moves it to a taken email.
	UpdateContact(ctx context.Context, workspaceID, id string, p Patch) (Contact, error)
	// DeleteContact erases the contact and its email's claim.
	DeleteContact(ctx context.Context, workspaceID, id string) error
	// ListContacts returns up to limit contacts newest first after the
	// position after ("" for the first page), the position to continue
	// after, and whether more may follow.
	ListContacts(ctx context.Context, workspaceID string, f Filter, after string, limit int) (contacts []Contact, next string, hasMore bool, err error)
}
