// Package ses is the adapter over SES v2: sending raw messages and managing
// domain identities with Easy DKIM.
package ses

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
)

// API is the part of *sesv2.Client this package uses, so tests can fake it.
type API interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
	CreateEmailIdentity(ctx context.Context, in *sesv2.CreateEmailIdentityInput, optFns ...func(*sesv2.Options)) (*sesv2.CreateEmailIdentityOutput, error)
	GetEmailIdentity(ctx context.Context, in *sesv2.GetEmailIdentityInput, optFns ...func(*sesv2.Options)) (*sesv2.GetEmailIdentityOutput, error)
}

var _ API = (*sesv2.Client)(nil)

// Client sends mail and manages identities through SES v2.
type Client struct {
	API API
}

var (
	// ErrRejected means SES will not send this message as it is: retrying
	// cannot help. The error is a *RejectedError carrying a safe reason.
	ErrRejected = errors.New("ses: message rejected")
	// ErrThrottled means SES refused for rate or quota after the SDK's own
	// retries; try again later. It is sending's, so the send path tells a
	// throttle from a fault without this package.
	ErrThrottled = sending.ErrThrottled
	// ErrIdentityNotFound means the domain is not an SES identity.
	ErrIdentityNotFound = errors.New("ses: identity not found")
	// ErrInvalidInput means the call was refused before reaching SES.
	ErrInvalidInput = errors.New("ses: invalid input")
)

// RejectedError is returned (wrapping ErrRejected and the SES error) when
// SES refuses a message for good. Reason is fixed text, safe to store and
// show to the API client; the SES message may name addresses and is kept
// only in the wrapped error. It is also a permanent *fail.Error, which is
// how sending tells a refusal from a fault.
type RejectedError struct {
	Reason string // e.g. "sending paused for the account"
	Code   string // the SES error code, e.g. "MessageRejected"
	err    error
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("ses: message rejected (%s): %s", e.Code, e.Reason)
}

// Unwrap lets errors.Is(err, ErrRejected) and errors.As(err, *types.X) both
// work.
func (e *RejectedError) Unwrap() []error { return []error{ErrRejected, e.err} }

// As makes errors.As see e as a permanent *fail.Error (the message is
// refused as it is) whose message is the safe Reason.
func (e *RejectedError) As(target any) bool {
	t, ok := target.(**fail.Error)
	if ok {
		*t = &fail.Error{Kind: fail.KindInvalid, Message: e.Reason, Err: e}
	}
	return ok
}

var _ sending.Transport = (*Client)(nil)

// Send sends a raw message and returns SES's message id. The email_id and
// workspace_id tags travel as SES message tags, so SES events map back to
// the email without a lookup.
func (c *Client) Send(ctx context.Context, in sending.SendInput) (string, error) {
	if len(in.Raw) == 0 || in.From == "" || in.To == "" {
		return "", fmt.Errorf("%w: raw message, from and to are required", ErrInvalidInput)
	}
	tags, err := messageTags(in.Tags)
	if err != nil {
		return "", err
	}
	req := &sesv2.SendEmailInput{
		Content:          &types.EmailContent{Raw: &types.RawMessage{Data: in.Raw}},
		FromEmailAddress: aws.String(in.From),
		// With Raw content the Destination is the envelope: SES delivers to
		// it, not to whatever the headers say.
		Destination: &types.Destination{ToAddresses: []string{in.To}},
		EmailTags:   tags,
	}
	if in.ConfigurationSet != "" {
		req.ConfigurationSetName = aws.String(in.ConfigurationSet)
	}
	out, err := c.API.SendEmail(ctx, req)
	if err != nil {
		return "", classify(err)
	}
	if out.MessageId == nil {
		return "", errors.New("ses: SendEmail returned no message id")
	}
	return *out.MessageId, nil
}

// classify sorts a SendEmail error into rejected, throttled or other.
func classify(err error) error {
	var (
		rejected   *types.MessageRejected
		mailFrom   *types.MailFromDomainNotVerifiedException
		suspended  *types.AccountSuspendedException
		paused     *types.SendingPausedException
		badRequest *types.BadRequestException
		tooMany    *types.TooManyRequestsException
		limit      *types.LimitExceededException
		respErr    *smithyhttp.ResponseError
	)
	reject := func(code, reason string) error {
		return &RejectedError{Reason: reason, Code: code, err: err}
	}
	switch {
	case errors.As(err, &rejected):
		return reject(rejected.ErrorCode(), rejectedReason(rejected.ErrorMessage()))
	case errors.As(err, &mailFrom):
		return reject(mailFrom.ErrorCode(), "the MAIL FROM domain is not verified")
	case errors.As(err, &suspended):
		return reject(suspended.ErrorCode(), "the sending account is suspended")
	case errors.As(err, &paused):
		return reject(paused.ErrorCode(), "sending is paused for the account or configuration set")
	case errors.As(err, &badRequest):
		return reject(badRequest.ErrorCode(), "SES refused the request as invalid")
	case errors.As(err, &tooMany), errors.As(err, &limit):
		return fmt.Errorf("%w: %w", ErrThrottled, err)
	case retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary:
		return fmt.Errorf("%w: %w", ErrThrottled, err)
	case errors.As(err, &respErr) && respErr.HTTPStatusCode() == http.StatusTooManyRequests:
		return fmt.Errorf("%w: %w", ErrThrottled, err)
	}
	return fmt.Errorf("ses: send: %w", err)
}

// rejectedReason names the usual causes of MessageRejected in fixed words;
// SES's own text can quote addresses.
func rejectedReason(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "not verified"):
		return "an address or domain is not verified in SES"
	case strings.Contains(m, "length") || strings.Contains(m, "too large") || strings.Contains(m, "size"):
		return "the message is too large"
	case strings.Contains(m, "virus"):
		return "the message contains a virus"
	case strings.Contains(m, "address"):
		return "an address is invalid"
	}
	return "the message was rejected by SES"
}

// messageTags validates tags against SES's rules ([A-Za-z0-9_-], 1–256
// characters) so a bad tag fails here, not as an opaque BadRequest, and
// orders them by name so requests are reproducible.
func messageTags(tags map[string]string) ([]types.MessageTag, error) {
	names := make([]string, 0, len(tags))
	for name, value := range tags {
		if !validTag(name) || !validTag(value) {
			return nil, fmt.Errorf("%w: tag %q=%q: SES allows 1-256 of [A-Za-z0-9_-]", ErrInvalidInput, name, value)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]types.MessageTag, 0, len(names))
	for _, name := range names {
		out = append(out, types.MessageTag{Name: aws.String(name), Value: aws.String(tags[name])})
	}
	return out, nil
}

func validTag(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// DNSRecord and DomainStatus are the identity package's: the owner service
// reads SES's answers without depending on the SDK.
type (
	DNSRecord    = identity.DNSRecord
	DomainStatus = identity.ProviderStatus
)

// CreateDomain makes domain an SES identity signed with Easy DKIM and
// returns the three DKIM CNAME records to publish. Creating an existing
// identity returns its records, so the call can be repeated.
func (c *Client) CreateDomain(ctx context.Context, domain string, configurationSet string) ([]DNSRecord, error) {
	domain, err := normalizeDomain(domain)
	if err != nil {
		return nil, err
	}
	req := &sesv2.CreateEmailIdentityInput{
		EmailIdentity: aws.String(domain),
		// Easy DKIM, with the key length pinned rather than left to SES.
		DkimSigningAttributes: &types.DkimSigningAttributes{NextSigningKeyLength: types.DkimSigningKeyLengthRsa2048Bit},
	}
	if configurationSet != "" {
		req.ConfigurationSetName = aws.String(configurationSet)
	}
	out, err := c.API.CreateEmailIdentity(ctx, req)
	var exists *types.AlreadyExistsException
	switch {
	case errors.As(err, &exists):
		st, err := c.DomainStatus(ctx, domain)
		if err != nil {
			return nil, err
		}
		return st.Records, nil
	case err != nil:
		return nil, fmt.Errorf("ses: create identity %s: %w", domain, err)
	}
	return dkimRecords(domain, out.DkimAttributes), nil
}

// DomainStatus reads a domain identity's verification and DKIM state.
func (c *Client) DomainStatus(ctx context.Context, domain string) (DomainStatus, error) {
	domain, err := normalizeDomain(domain)
	if err != nil {
		return DomainStatus{}, err
	}
	out, err := c.API.GetEmailIdentity(ctx, &sesv2.GetEmailIdentityInput{EmailIdentity: aws.String(domain)})
	if err != nil {
		var notFound *types.NotFoundException
		if errors.As(err, &notFound) {
			return DomainStatus{}, fmt.Errorf("%w: %s", ErrIdentityNotFound, domain)
		}
		return DomainStatus{}, fmt.Errorf("ses: get identity %s: %w", domain, err)
	}
	st := DomainStatus{Verified: out.VerifiedForSendingStatus, Records: dkimRecords(domain, out.DkimAttributes)}
	if out.DkimAttributes != nil {
		st.DKIMStatus = string(out.DkimAttributes.Status)
	}
	return st, nil
}

// defaultDKIMZone is where Easy DKIM keys live unless SES names another
// zone (some regions publish under a regional zone).
const defaultDKIMZone = "dkim.amazonses.com"

func dkimRecords(domain string, attrs *types.DkimAttributes) []DNSRecord {
	if attrs == nil {
		return nil
	}
	zone := defaultDKIMZone
	if attrs.SigningHostedZone != nil && *attrs.SigningHostedZone != "" {
		zone = strings.TrimSuffix(*attrs.SigningHostedZone, ".")
	}
	records := make([]DNSRecord, 0, len(attrs.Tokens))
	for _, token := range attrs.Tokens {
		records = append(records, DNSRecord{
			Type:  "CNAME",
			Name:  token + "._domainkey." + domain,
			Value: token + "." + zone,
		})
	}
	return records
}

// normalizeDomain is identity.NormalizeDomain as an SES input error, so
// garbage never reaches SES or the DNS records shown to the owner.
func normalizeDomain(domain string) (string, error) {
	d, err := identity.NormalizeDomain(domain)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	return d, nil
}

// AccountAPI is the part of *sesv2.Client that reads the account.
type AccountAPI interface {
	GetAccount(ctx context.Context, in *sesv2.GetAccountInput, optFns ...func(*sesv2.Options)) (*sesv2.GetAccountOutput, error)
}

// Account reads the SES account's sending quota.
type Account struct {
	API AccountAPI
}

// MaxSendRate is the account's maximum send rate, emails per second, as
// GetAccount reports it: what campaign pacing stays under.
func (a Account) MaxSendRate(ctx context.Context) (float64, error) {
	out, err := a.API.GetAccount(ctx, &sesv2.GetAccountInput{})
	if err != nil {
		return 0, fmt.Errorf("ses get account: %w", err)
	}
	if out.SendQuota == nil || out.SendQuota.MaxSendRate <= 0 {
		return 0, errors.New("ses get account: no send quota")
	}
	return out.SendQuota.MaxSendRate, nil
}

// Calls is API made of c's method values. A binary that executes
// templates (the dashboard) keeps every exported method of a type that
// reaches an interface: passing c itself would link all of SES's
// operations (see dynamo.clientDB).
func Calls(c *sesv2.Client) API {
	return apiCalls{sendEmail: c.SendEmail, createEmailIdentity: c.CreateEmailIdentity, getEmailIdentity: c.GetEmailIdentity}
}

type apiCalls struct {
	sendEmail           func(context.Context, *sesv2.SendEmailInput, ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
	createEmailIdentity func(context.Context, *sesv2.CreateEmailIdentityInput, ...func(*sesv2.Options)) (*sesv2.CreateEmailIdentityOutput, error)
	getEmailIdentity    func(context.Context, *sesv2.GetEmailIdentityInput, ...func(*sesv2.Options)) (*sesv2.GetEmailIdentityOutput, error)
}

func (a apiCalls) SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	return a.sendEmail(ctx, in, optFns...)
}

func (a apiCalls) CreateEmailIdentity(ctx context.Context, in *sesv2.CreateEmailIdentityInput, optFns ...func(*sesv2.Options)) (*sesv2.CreateEmailIdentityOutput, error) {
	return a.createEmailIdentity(ctx, in, optFns...)
}

func (a apiCalls) GetEmailIdentity(ctx context.Context, in *sesv2.GetEmailIdentityInput, optFns ...func(*sesv2.Options)) (*sesv2.GetEmailIdentityOutput, error) {
	return a.getEmailIdentity(ctx, in, optFns...)
}
