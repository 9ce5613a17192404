package contactdb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/contact"
)

// ContactIDsByEmail reads the claims of emails (normalized) in one
// batch read, strongly consistent, and returns the contact id of each
// claimed one.
func (s *Contacts) ContactIDsByEmail(ctx context.Context, workspaceID string, emails []string) (map[string]string, error) {
	keys := make([]map[string]ddbtypes.AttributeValue, 0, len(emails))
	for _, e := range emails {
		keys = append(keys, contactEmailKey(workspaceID, e))
	}
	items, err := s.BatchGet(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read contact emails: %w", err)
	}
	var claims []contactEmailItem
	if err := attributevalue.UnmarshalListOfMaps(items, &claims); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(claims))
	for _, c := range claims {
		out[c.SK] = c.ContactID
	}
	return out, nil
}

// CreateContacts stores up to contact.CreateBatch new contacts with their
// claims in one transaction (two items each). When some emails were
// claimed meanwhile, the transaction is run again without them, and they
// are returned.
func (s *Contacts) CreateContacts(ctx context.Context, cs []contact.Contact) ([]string, error) {
	if len(cs) > contact.CreateBatch {
		return nil, fmt.Errorf("create contacts: %d contacts, at most %d per transaction", len(cs), contact.CreateBatch)
	}
	var taken []string
	for len(cs) > 0 {
		items := make([]ddbtypes.TransactWriteItem, 0, 2*len(cs))
		for _, c := range cs {
			its, err := s.createItems(c)
			if err != nil {
				return nil, err
			}
			items = append(items, its...)
		}
		failed, err := s.Transact(ctx, items)
		if err != nil {
			return nil, fmt.Errorf("create contacts: %w", err)
		}
		if len(failed) == 0 {
			break
		}
		drop := map[int]bool{}
		for _, i := range failed {
			drop[i/2] = true
		}
		rest := cs[:0:0]
		for i, c := range cs {
			if drop[i] {
				taken = append(taken, c.Email)
			} else {
				rest = append(rest, c)
			}
		}
		cs = rest
	}
	return taken, nil
}
