package owner

import (
	"errors"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// notFound are the answers of an owner action about a thing that is not
// in the workspace: another workspace's id is one of them too.
var notFound = []error{
	workspace.ErrNotFound, apikey.ErrKeyNotFound, webhook.ErrEndpointNotFound, identity.ErrDomainNotFound,
	identity.ErrSenderNotFound, campaign.ErrNotFound, suppression.ErrNotFound, contact.ErrNotFound,
	email.ErrNotFound, segment.ErrNotFound, ErrOwnerNotFound, sending.ErrNotHeld,
}

// IsNotFound reports whether err says the thing acted on is not in the
// workspace, which a surface answers as not found (the dashboard's 404).
func IsNotFound(err error) bool {
	if in := (*InputError)(nil); errors.As(err, &in) && in.missing {
		return true
	}
	for _, nf := range notFound {
		if errors.Is(err, nf) {
			return true
		}
	}
	return false
}
