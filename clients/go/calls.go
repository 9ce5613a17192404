package sesame

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/clients/go/api"
)

// SendOption changes one send.
type SendOption func(*string)

// WithIdempotencyKey sends the request with this Idempotency-Key. Without
// it the client makes one per call, so its own retries never send twice.
func WithIdempotencyKey(key string) SendOption { return func(k *string) { *k = key } }

func idempotencyKey(opts []SendOption) *string {
	key := uuid.NewString()
	for _, opt := range opts {
		opt(&key)
	}
	return &key
}

// Send sends one email (POST /send). A held email is a success too
// (Status "held"); a suppressed or failed one is a SendResult with
// Success false, not an error.
func (c *Client) Send(ctx context.Context, e Email, opts ...SendOption) (SendResult, error) {
	return decode[SendResult](c.API.SendEmail(ctx, &api.SendEmailParams{IdempotencyKey: idempotencyKey(opts)}, e))
}

// BatchItem is one item's outcome in a batch: Result when it was
// recorded, Err (its param scoped to the item, e.g. "emails[1].to") when
// it was refused.
type BatchItem struct {
	Index  int
	Result *api.BatchItem0
	Err    *Error
}

// SendBatch sends up to 100 emails in one request (POST /send/batch); the
// items are in the order given.
func (c *Client) SendBatch(ctx context.Context, emails []Email, opts ...SendOption) ([]BatchItem, error) {
	res, err := c.API.SendBatch(ctx, &api.SendBatchParams{IdempotencyKey: idempotencyKey(opts)}, api.BatchRequest{Emails: emails})
	out, err := decode[struct {
		Data []json.RawMessage `json:"data"`
	}](res, err)
	if err != nil {
		return nil, err
	}
	items := make([]BatchItem, len(out.Data))
	for i, raw := range out.Data {
		var probe struct {
			Index int                 `json:"index"`
			Error *api.BatchItemError `json:"error"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("sesame: batch item %d: %w", i, err)
		}
		items[i].Index = probe.Index
		if probe.Error != nil {
			e := &Error{StatusCode: res.StatusCode, Code: string(probe.Error.Code), Message: probe.Error.Message,
				RequestID: res.Header.Get("X-Request-Id")}
			if probe.Error.Param != nil {
				e.Param = *probe.Error.Param
			}
			items[i].Err = e
			continue
		}
		var r api.BatchItem0
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("sesame: batch item %d: %w", i, err)
		}
		items[i].Result = &r
	}
	return items, nil
}

// id parses a record id; the API's ids are UUIDs.
func id(s string) (uuid.UUID, error) {
	u, err := uuid.Parse(s)
	if err != nil {
		return u, fmt.Errorf("sesame: id %q is not a UUID", s)
	}
	return u, nil
}

// GetEmail reads one email back (GET /emails/{id}).
func (c *Client) GetEmail(ctx context.Context, emailID string) (SentEmail, error) {
	u, err := id(emailID)
	if err != nil {
		return SentEmail{}, err
	}
	return data[SentEmail](c.API.GetEmail(ctx, u))
}

// Emails iterates over the workspace's emails, newest first, every page.
func (c *Client) Emails(ctx context.Context, p ListEmailsParams) iter.Seq2[SentEmail, error] {
	return pages[SentEmail](func(cursor *string) (*http.Response, error) {
		p.Cursor = cursor
		return c.API.ListEmails(ctx, &p)
	})
}

// Clicks lists an email's tracked clicks (GET /emails/{id}/clicks).
func (c *Client) Clicks(ctx context.Context, emailID string) (ClickList, error) {
	u, err := id(emailID)
	if err != nil {
		return ClickList{}, err
	}
	return decode[ClickList](c.API.ListEmailClicks(ctx, u))
}

// Events iterates over the events feed, newest first.
func (c *Client) Events(ctx context.Context, p ListEventsParams) iter.Seq2[Event, error] {
	return pages[Event](func(cursor *string) (*http.Response, error) {
		p.Cursor = cursor
		return c.API.ListEvents(ctx, &p)
	})
}

// Domains iterates over the workspace's sending domains.
func (c *Client) Domains(ctx context.Context, p ListDomainsParams) iter.Seq2[Domain, error] {
	return pages[Domain](func(cursor *string) (*http.Response, error) {
		p.Cursor = cursor
		return c.API.ListDomains(ctx, &p)
	})
}

// Metrics reads the daily counters (GET /metrics).
func (c *Client) Metrics(ctx context.Context, p GetMetricsParams) (MetricsReport, error) {
	return data[MetricsReport](c.API.GetMetrics(ctx, &p))
}

// CheckDeliverability checks content before sending it.
func (c *Client) CheckDeliverability(ctx context.Context, r DeliverabilityRequest) (DeliverabilityResult, error) {
	return decode[DeliverabilityResult](c.API.CheckDeliverability(ctx, r))
}

// Contacts iterates over the workspace's contacts.
func (c *Client) Contacts(ctx context.Context, p ListContactsParams) iter.Seq2[Contact, error] {
	return pages[Contact](func(cursor *string) (*http.Response, error) {
		p.Cursor = cursor
		return c.API.ListContacts(ctx, &p)
	})
}

// CreateContact adds a contact (POST /contacts).
func (c *Client) CreateContact(ctx context.Context, r ContactCreate) (Contact, error) {
	return data[Contact](c.API.CreateContact(ctx, r))
}

// GetContact reads one contact.
func (c *Client) GetContact(ctx context.Context, contactID string) (Contact, error) {
	u, err := id(contactID)
	if err != nil {
		return Contact{}, err
	}
	return data[Contact](c.API.GetContact(ctx, u))
}

// UpdateContact changes the fields given (PATCH /contacts/{id}).
func (c *Client) UpdateContact(ctx context.Context, contactID string, r ContactUpdate) (Contact, error) {
	u, err := id(contactID)
	if err != nil {
		return Contact{}, err
	}
	return data[Contact](c.API.UpdateContact(ctx, u, r))
}

// DeleteContact deletes a contact.
func (c *Client) DeleteContact(ctx context.Context, contactID string) (api.DeletedContact, error) {
	u, err := id(contactID)
	if err != nil {
		return api.DeletedContact{}, err
	}
	return data[api.DeletedContact](c.API.DeleteContact(ctx, u))
}

// Suppressions iterates over the do-not-send list.
func (c *Client) Suppressions(ctx context.Context, p ListSuppressionsParams) iter.Seq2[Suppression, error] {
	return pages[Suppression](func(cursor *string) (*http.Response, error) {
		p.Cursor = cursor
		return c.API.ListSuppressions(ctx, &p)
	})
}

// Suppress adds one address to the do-not-send list (reason nil: manual).
func (c *Client) Suppress(ctx context.Context, email string, reason *api.SuppressionReason) (Suppression, error) {
	return data[Suppression](c.API.AddSuppressions(ctx, api.SuppressionRequest{Email: &email, Reason: reason}))
}

// SuppressMany adds up to 1,000 addresses, each on its own.
func (c *Client) SuppressMany(ctx context.Context, emails []string, reason *api.SuppressionReason) (api.SuppressionBatchResult, error) {
	return decode[api.SuppressionBatchResult](c.API.AddSuppressions(ctx, api.SuppressionRequest{Emails: &emails, Reason: reason}))
}

// Unsuppress removes an address from the do-not-send list and returns
// the entry it removed.
func (c *Client) Unsuppress(ctx context.Context, email string) (Suppression, error) {
	return data[Suppression](c.API.DeleteSuppression(ctx, email))
}

// CreateSegment saves a segment (needs segments:write).
func (c *Client) CreateSegment(ctx context.Context, r SegmentCreate) (Segment, error) {
	return data[Segment](c.API.CreateSegment(ctx, r))
}

// SendBulk drafts a campaign for the owner's approval (needs email:send_bulk).
func (c *Client) SendBulk(ctx context.Context, r BulkDraftRequest, opts ...SendOption) (BulkDraftResult, error) {
	return decode[BulkDraftResult](c.API.SendBulk(ctx, &api.SendBulkParams{IdempotencyKey: idempotencyKey(opts)}, r))
}

// Campaigns iterates over the workspace's campaigns.
func (c *Client) Campaigns(ctx context.Context, p ListCampaignsParams) iter.Seq2[Campaign, error] {
	return pages[Campaign](func(cursor *string) (*http.Response, error) {
		p.Cursor = cursor
		return c.API.ListCampaigns(ctx, &p)
	})
}

// GetCampaign reads one campaign.
func (c *Client) GetCampaign(ctx context.Context, campaignID string) (Campaign, error) {
	u, err := id(campaignID)
	if err != nil {
		return Campaign{}, err
	}
	return data[Campaign](c.API.GetCampaign(ctx, u))
}

// CancelCampaign cancels a campaign that has not finished.
func (c *Client) CancelCampaign(ctx context.Context, campaignID string) (Campaign, error) {
	u, err := id(campaignID)
	if err != nil {
		return Campaign{}, err
	}
	return data[Campaign](c.API.CancelCampaign(ctx, u))
}

// ReportEvent reports an automation event (POST /automations/events).
func (c *Client) ReportEvent(ctx context.Context, r AutomationEventRequest) (AutomationEventResult, error) {
	return data[AutomationEventResult](c.API.ReportAutomationEvent(ctx, r))
}
