package contactdb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// ContactItem is one contact in its shard. Version counts its writes, so
// an update that read it writes only over what it read.
func (it ContactItem) SortKey() string { return it.SK }

type ContactItem struct {
	PK             string                   `dynamodbav:"pk"`
	SK             string                   `dynamodbav:"sk"`
	Email          string                   `dynamodbav:"email"`
	FirstName      *string                  `dynamodbav:"first_name,omitempty"`
	LastName       *string                  `dynamodbav:"last_name,omitempty"`
	Subscribed     bool                     `dynamodbav:"subscribed"`
	UnsubscribedAt *time.Time               `dynamodbav:"unsubscribed_at,omitempty"`
	Tags           []string                 `dynamodbav:"tags,omitempty"`
	Properties     map[string]propertyValue `dynamodbav:"properties,omitempty"`
	CreatedAt      time.Time                `dynamodbav:"created_at"`
	UpdatedAt      time.Time                `dynamodbav:"updated_at"`
	Version        int64                    `dynamodbav:"version"`
}

func newContactItem(c contact.Contact, version int64) ContactItem {
	it := ContactItem{
		PK: dynamo.ContactPK(c.WorkspaceID, c.ID), SK: c.ID, Email: c.Email,
		FirstName: c.FirstName, LastName: c.LastName, Subscribed: c.Subscribed,
		UnsubscribedAt: c.UnsubscribedAt, Tags: c.Tags,
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(), Version: version,
	}
	if len(c.Properties) > 0 {
		it.Properties = make(map[string]propertyValue, len(c.Properties))
		for k, v := range c.Properties {
			it.Properties[k] = propertyValue(v)
		}
	}
	return it
}

func (it ContactItem) Contact(workspaceID string) contact.Contact {
	c := contact.Contact{
		ID: it.SK, WorkspaceID: workspaceID, Email: it.Email, FirstName: it.FirstName, LastName: it.LastName,
		Subscribed: it.Subscribed, UnsubscribedAt: it.UnsubscribedAt, Tags: it.Tags,
		Properties: make(map[string]contact.Property, len(it.Properties)),
		CreatedAt:  it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	for k, v := range it.Properties {
		c.Properties[k] = contact.Property(v)
	}
	return c
}

// propertyValue stores a property as DynamoDB's own string, number or
// boolean, so a filter can compare it.
type propertyValue contact.Property

func (p propertyValue) MarshalDynamoDBAttributeValue() (ddbtypes.AttributeValue, error) {
	switch p.Kind {
	case contact.KindString:
		return &ddbtypes.AttributeValueMemberS{Value: p.String}, nil
	case contact.KindNumber:
		return &ddbtypes.AttributeValueMemberN{Value: strconv.FormatFloat(p.Number, 'g', -1, 64)}, nil
	case contact.KindBool:
		return &ddbtypes.AttributeValueMemberBOOL{Value: p.Bool}, nil
	}
	return nil, contact.ErrPropertyType
}

func (p *propertyValue) UnmarshalDynamoDBAttributeValue(av ddbtypes.AttributeValue) error {
	switch v := av.(type) {
	case *ddbtypes.AttributeValueMemberS:
		*p = propertyValue(contact.StringProperty(v.Value))
	case *ddbtypes.AttributeValueMemberN:
		n, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			return err
		}
		*p = propertyValue(contact.NumberProperty(n))
	case *ddbtypes.AttributeValueMemberBOOL:
		*p = propertyValue(contact.BoolProperty(v.Value))
	default:
		return contact.ErrPropertyType
	}
	return nil
}

// contactEmailItem claims an email for one contact of the workspace.
type contactEmailItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	ContactID string `dynamodbav:"contact_id"`
}

func contactEmailKey(workspaceID, email string) map[string]ddbtypes.AttributeValue {
	return dynamo.Key(dynamo.ContactEmailPK(workspaceID, email), email)
}

// claimedBy is the condition that the email's claim names the contact.
func claimedBy(id string) expression.ConditionBuilder {
	return expression.Name("contact_id").Equal(expression.Value(id))
}

// CreateContact stores a new contact and claims its email in one
// transaction: contact.ErrExists when another contact has the email, so
// concurrent creates of one address leave exactly one contact.
func (s *Contacts) CreateContact(ctx context.Context, c contact.Contact) error {
	items, err := s.createItems(c)
	if err != nil {
		return err
	}
	failed, err := s.Transact(ctx, items)
	if err != nil {
		return fmt.Errorf("create contact: %w", err)
	}
	if len(failed) > 0 {
		return contact.ErrExists
	}
	return nil
}

// createItems are the writes of a new contact: the contact, then the
// claim of its email.
func (s *Contacts) createItems(c contact.Contact) ([]ddbtypes.TransactWriteItem, error) {
	put, err := s.PutOf(newContactItem(c, 1), dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	claim, err := s.PutOf(contactEmailItem{PK: dynamo.ContactEmailPK(c.WorkspaceID, c.Email), SK: c.Email, ContactID: c.ID}, dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	return []ddbtypes.TransactWriteItem{{Put: put}, {Put: claim}}, nil
}

// getContact reads a contact and its version, strongly consistent.
func (s *Contacts) getContact(ctx context.Context, workspaceID, id string) (ContactItem, error) {
	var it ContactItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.ContactPK(workspaceID, id), id), &it)
	if err != nil {
		return ContactItem{}, fmt.Errorf("get contact: %w", err)
	}
	if !found {
		return ContactItem{}, contact.ErrNotFound
	}
	return it, nil
}

// GetContact reads one contact of the workspace.
func (s *Contacts) GetContact(ctx context.Context, workspaceID, id string) (contact.Contact, error) {
	it, err := s.getContact(ctx, workspaceID, id)
	if err != nil {
		return contact.Contact{}, err
	}
	return it.Contact(workspaceID), nil
}

// contactIDByEmail reads which contact claims email; "" when none does.
func (s *Contacts) contactIDByEmail(ctx context.Context, workspaceID, email string) (string, error) {
	var claim contactEmailItem
	found, err := s.GetItem(ctx, contactEmailKey(workspaceID, email), &claim)
	if err != nil {
		return "", fmt.Errorf("get contact email: %w", err)
	}
	if !found {
		return "", nil
	}
	return claim.ContactID, nil
}

// GetContactByEmail reads the contact with email (in any case, with
// surrounding spaces) through its claim: two reads, never a Query.
func (s *Contacts) GetContactByEmail(ctx context.Context, workspaceID, email string) (contact.Contact, error) {
	id, err := s.contactIDByEmail(ctx, workspaceID, contact.NormalizeEmail(email))
	if err != nil {
		return contact.Contact{}, err
	}
	if id == "" {
		return contact.Contact{}, contact.ErrNotFound
	}
	return s.GetContact(ctx, workspaceID, id)
}

// updateRetries bounds the retries of an update that lost a race with
// another write of the same contact.
const updateRetries = 5

// UpdateContact applies p to the contact: absent fields unchanged, null
// clears, properties merge. The write is conditional on the version it
// read (retried when another write came between); a new email moves the
// claim in the same transaction, contact.ErrExists when it is taken.
func (s *Contacts) UpdateContact(ctx context.Context, workspaceID, id string, p contact.Patch) (contact.Contact, error) {
	for range updateRetries {
		cur, err := s.getContact(ctx, workspaceID, id)
		if err != nil {
			return contact.Contact{}, err
		}
		prev := cur.Contact(workspaceID)
		next, err := p.Apply(prev, s.Time())
		if err != nil {
			return contact.Contact{}, err
		}
		if p.Unchanged(prev, next) {
			return prev, nil
		}
		ok, err := s.replace(ctx, cur, next)
		if err != nil || ok {
			return next, err
		}
	}
	return contact.Contact{}, fail.Unavailable(dynamo.FaultRetryAfter, "the contact is being changed by another request; retry shortly")
}

// replace writes next over cur unless another write came between (false);
// when the email changes, the claim moves with it.
func (s *Contacts) replace(ctx context.Context, cur ContactItem, next contact.Contact) (bool, error) {
	put, err := s.PutOf(newContactItem(next, cur.Version+1), expression.Name("version").Equal(expression.Value(cur.Version)))
	if err != nil {
		return false, err
	}
	if next.Email == cur.Email {
		err := s.Put(ctx, put)
		if dynamo.IsConditionFailed(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("update contact: %w", err)
		}
		return true, nil
	}
	release, err := s.DeleteOf(contactEmailKey(next.WorkspaceID, cur.Email), claimedBy(next.ID))
	if err != nil {
		return false, err
	}
	claim, err := s.PutOf(contactEmailItem{PK: dynamo.ContactEmailPK(next.WorkspaceID, next.Email), SK: next.Email, ContactID: next.ID}, dynamo.ItemAbsent())
	if err != nil {
		return false, err
	}
	failed, err := s.Transact(ctx, []ddbtypes.TransactWriteItem{{Put: put}, {Delete: release}, {Put: claim}})
	switch {
	case err != nil:
		return false, fmt.Errorf("update contact email: %w", err)
	case len(failed) == 0:
		return true, nil
	case failed[len(failed)-1] == 2:
		return false, contact.ErrExists
	}
	return false, nil
}

// Unsubscribe marks the contact unsubscribed; unsubscribed_at keeps the
// first time when it already was. contact.ErrNotFound when absent.
func (s *Contacts) Unsubscribe(ctx context.Context, workspaceID, contactID string, at time.Time) (contact.Contact, error) {
	at = at.UTC()
	update := expression.Set(expression.Name("subscribed"), expression.Value(false)).
		Set(expression.Name("unsubscribed_at"), expression.IfNotExists(expression.Name("unsubscribed_at"), expression.Value(at))).
		Set(expression.Name("updated_at"), expression.Value(at)).
		Add(expression.Name("version"), expression.Value(1))
	var it ContactItem
	err := s.UpdateItem(ctx, dynamo.Key(dynamo.ContactPK(workspaceID, contactID), contactID), update, dynamo.ItemExists(), &it)
	if dynamo.IsConditionFailed(err) {
		return contact.Contact{}, contact.ErrNotFound
	}
	if err != nil {
		return contact.Contact{}, fmt.Errorf("unsubscribe contact: %w", err)
	}
	return it.Contact(workspaceID), nil
}

// DeleteContact erases the contact and releases its email, in one
// transaction. What the do-not-send list holds about the address stays.
func (s *Contacts) DeleteContact(ctx context.Context, workspaceID, id string) error {
	for range updateRetries {
		cur, err := s.getContact(ctx, workspaceID, id)
		if err != nil {
			return err
		}
		del, err := s.DeleteOf(dynamo.Key(cur.PK, cur.SK), expression.Name("version").Equal(expression.Value(cur.Version)))
		if err != nil {
			return err
		}
		release, err := s.DeleteOf(contactEmailKey(workspaceID, cur.Email), claimedBy(id))
		if err != nil {
			return err
		}
		failed, err := s.Transact(ctx, []ddbtypes.TransactWriteItem{{Delete: del}, {Delete: release}})
		if err != nil {
			return fmt.Errorf("delete contact: %w", err)
		}
		if len(failed) == 0 {
			return nil
		}
	}
	return fail.Unavailable(dynamo.FaultRetryAfter, "the contact is being changed by another request; retry shortly")
}

// EventContact is the id of the contact an automation event names
// (automation.TriggerStore): by id, its item (one GetItem); by email, the
// email's claim, which holds the id (one GetItem, the contact itself is
// not read). automation.ErrContactNotFound when the
// workspace has none; an id that is not a UUID is never one.
func (s *Contacts) EventContact(ctx context.Context, workspaceID string, ref automation.ContactRef) (string, error) {
	if ref.Email != "" {
		email := contact.NormalizeEmail(ref.Email)
		if _, err := contact.CheckEmail(email); err != nil {
			return "", automation.ErrContactNotFound
		}
		id, err := s.contactIDByEmail(ctx, workspaceID, email)
		if err == nil && id == "" {
			err = automation.ErrContactNotFound
		}
		return id, err
	}
	if _, err := ident.Parse(ref.ID); err != nil {
		return "", automation.ErrContactNotFound
	}
	it, err := s.getContact(ctx, workspaceID, ref.ID)
	if errors.Is(err, contact.ErrNotFound) {
		return "", automation.ErrContactNotFound
	}
	return it.SK, err
}
