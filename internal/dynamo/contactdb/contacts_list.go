package contactdb

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// eachContactPage is how many contacts one Query of EachContact reads.
// On DynamoDB Local, 16 shards read in 1 MB pages (~3,000 contacts)
// at once made reading 100,000 contacts take 13 to 39 s; pages of 500
// kept it at 11 to 17 s (make bench, BenchmarkSegmentEvaluation). On
// AWS a page of ~160 KB is a round trip of a few ms, ~125 per shard for
// a 1,000,000-contact workspace.
const eachContactPage = 500

// EachContact calls fn with every contact of the workspace. The shards are
// read in parallel, each a Query (never a Scan); fn runs on the caller's
// goroutine, one call at a time, and an error from it stops the read and
// is returned.
func (s *Contacts) EachContact(ctx context.Context, workspaceID string, fn func(contact.Contact) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan []ContactItem, dynamo.ContactShards)
	g, gctx := errgroup.WithContext(ctx)
	for shard := range dynamo.ContactShards {
		g.Go(func() error {
			in, err := s.Partition("", schema.AttrPK, dynamo.ContactShardPK(workspaceID, shard))
			if err != nil {
				return err
			}
			in.Limit = aws.Int32(eachContactPage)
			p := dynamodb.NewQueryPaginator(s.DB, in)
			for p.HasMorePages() {
				page, err := p.NextPage(gctx)
				if err != nil {
					return fmt.Errorf("read contacts: %w", err)
				}
				var items []ContactItem
				if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
					return err
				}
				select {
				case pages <- items:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	go func() {
		_ = g.Wait() // returned below
		close(pages)
	}()
	var fnErr error
	for items := range pages {
		for _, it := range items {
			if fnErr != nil {
				break
			}
			if fnErr = fn(it.Contact(workspaceID)); fnErr != nil {
				cancel()
			}
		}
	}
	if fnErr != nil {
		return fnErr
	}
	return g.Wait()
}

// ListContacts returns contacts newest first: a reverse Query of every
// shard, merged by id (UUIDv7, so by creation time). subscribed and tag
// filter within the Queries, under listReadBudget items examined; email
// reads the one contact through its claim.
func (s *Contacts) ListContacts(ctx context.Context, workspaceID string, f contact.Filter, after string, limit int) ([]contact.Contact, string, bool, error) {
	if f.Email != "" {
		return s.listByEmail(ctx, workspaceID, f, after)
	}
	var filters []expression.ConditionBuilder
	if f.Subscribed != nil {
		filters = append(filters, expression.Name("subscribed").Equal(expression.Value(*f.Subscribed)))
	}
	if f.Tag != "" {
		filters = append(filters, expression.Contains(expression.Name("tags"), f.Tag))
	}
	pks := make([]string, 0, dynamo.ContactShards)
	for shard := range dynamo.ContactShards {
		pks = append(pks, dynamo.ContactShardPK(workspaceID, shard))
	}
	items, next, more, err := dynamo.MergedPage[ContactItem](ctx, s.Table, pks, after, limit, filters...)
	if err != nil {
		return nil, "", false, fmt.Errorf("list contacts: %w", err)
	}
	out := make([]contact.Contact, 0, len(items))
	for _, it := range items {
		out = append(out, it.Contact(workspaceID))
	}
	return out, next, more, nil
}

// listByEmail is the list filtered by an exact email: none or one contact.
func (s *Contacts) listByEmail(ctx context.Context, workspaceID string, f contact.Filter, after string) ([]contact.Contact, string, bool, error) {
	c, err := s.GetContactByEmail(ctx, workspaceID, f.Email)
	switch {
	case errors.Is(err, contact.ErrNotFound) || after != "":
		return []contact.Contact{}, "", false, nil
	case err != nil:
		return nil, "", false, err
	case f.Subscribed != nil && c.Subscribed != *f.Subscribed,
		f.Tag != "" && !slices.Contains(c.Tags, f.Tag):
		return []contact.Contact{}, "", false, nil
	}
	return []contact.Contact{c}, "", false, nil
}
