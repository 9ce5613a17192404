package ses_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// fakeAPI implements ses.API with one function field per method.
type fakeAPI struct {
	SendEmailFn           func(context.Context, *sesv2.SendEmailInput) (*sesv2.SendEmailOutput, error)
	CreateEmailIdentityFn func(context.Context, *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error)
	GetEmailIdentityFn    func(context.Context, *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error)
	GetAccountFn          func(context.Context, *sesv2.GetAccountInput) (*sesv2.GetAccountOutput, error)
}

func (f *fakeAPI) GetAccount(ctx context.Context, in *sesv2.GetAccountInput, _ ...func(*sesv2.Options)) (*sesv2.GetAccountOutput, error) {
	return f.GetAccountFn(ctx, in)
}

// MaxSendRate is the send quota's rate; an account without one is an error.
func TestMaxSendRate(t *testing.T) {
	c := ses.Account{API: &fakeAPI{GetAccountFn: func(context.Context, *sesv2.GetAccountInput) (*sesv2.GetAccountOutput, error) {
		return &sesv2.GetAccountOutput{SendQuota: &types.SendQuota{MaxSendRate: 14}}, nil
	}}}
	if r, err := c.MaxSendRate(t.Context()); err != nil || r != 14 {
		t.Fatalf("rate %v, %v", r, err)
	}
	c.API = &fakeAPI{GetAccountFn: func(context.Context, *sesv2.GetAccountInput) (*sesv2.GetAccountOutput, error) {
		return &sesv2.GetAccountOutput{}, nil
	}}
	if _, err := c.MaxSendRate(t.Context()); err == nil {
		t.Fatal("no quota accepted")
	}
}

func (f *fakeAPI) SendEmail(ctx context.Context, in *sesv2.SendEmailInput, _ ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	return f.SendEmailFn(ctx, in)
}

func (f *fakeAPI) CreateEmailIdentity(ctx context.Context, in *sesv2.CreateEmailIdentityInput, _ ...func(*sesv2.Options)) (*sesv2.CreateEmailIdentityOutput, error) {
	return f.CreateEmailIdentityFn(ctx, in)
}

func (f *fakeAPI) GetEmailIdentity(ctx context.Context, in *sesv2.GetEmailIdentityInput, _ ...func(*sesv2.Options)) (*sesv2.GetEmailIdentityOutput, error) {
	return f.GetEmailIdentityFn(ctx, in)
}

const (
	emailID     = "0190f1c2-7b3a-7cde-8f00-123456789abc"
	workspaceID = "0190f1c2-0000-7000-8000-00000000beef"
)

func sendInput() sending.SendInput {
	return sending.SendInput{
		Raw:              []byte("From: a@mail.example.test\r\nTo: b@example.test\r\nSubject: x\r\n\r\nhi\r\n"),
		ConfigurationSet: "sesame-tracking-on",
		Tags:             map[string]string{"workspace_id": workspaceID, "email_id": emailID},
		From:             "a@mail.example.test",
		To:               "b@example.test",
	}
}

func TestSendRequest(t *testing.T) {
	in := sendInput()
	var got *sesv2.SendEmailInput
	c := &ses.Client{API: &fakeAPI{SendEmailFn: func(_ context.Context, req *sesv2.SendEmailInput) (*sesv2.SendEmailOutput, error) {
		got = req
		return &sesv2.SendEmailOutput{MessageId: aws.String("0100-ses-id")}, nil
	}}}
	id, err := c.Send(t.Context(), in)
	if err != nil || id != "0100-ses-id" {
		t.Fatalf("Send = %q, %v", id, err)
	}
	if got.Content == nil || got.Content.Raw == nil || string(got.Content.Raw.Data) != string(in.Raw) {
		t.Errorf("Content.Raw = %+v", got.Content)
	}
	if got.Content.Simple != nil || got.Content.Template != nil {
		t.Errorf("only Raw content expected: %+v", got.Content)
	}
	if aws.ToString(got.ConfigurationSetName) != "sesame-tracking-on" {
		t.Errorf("ConfigurationSetName = %v", aws.ToString(got.ConfigurationSetName))
	}
	if aws.ToString(got.FromEmailAddress) != in.From {
		t.Errorf("FromEmailAddress = %v", aws.ToString(got.FromEmailAddress))
	}
	if got.Destination == nil || !reflect.DeepEqual(got.Destination.ToAddresses, []string{in.To}) ||
		len(got.Destination.CcAddresses)+len(got.Destination.BccAddresses) != 0 {
		t.Errorf("Destination = %+v", got.Destination)
	}
	var tags []string
	for _, tag := range got.EmailTags {
		tags = append(tags, aws.ToString(tag.Name)+"="+aws.ToString(tag.Value))
	}
	if want := []string{"email_id=" + emailID, "workspace_id=" + workspaceID}; !reflect.DeepEqual(tags, want) {
		t.Errorf("EmailTags = %v, want %v (sorted by name)", tags, want)
	}
}

func TestSendWithoutConfigurationSet(t *testing.T) {
	in := sendInput()
	in.ConfigurationSet = ""
	c := &ses.Client{API: &fakeAPI{SendEmailFn: func(_ context.Context, req *sesv2.SendEmailInput) (*sesv2.SendEmailOutput, error) {
		if req.ConfigurationSetName != nil {
			t.Errorf("ConfigurationSetName = %q, want unset", *req.ConfigurationSetName)
		}
		return &sesv2.SendEmailOutput{MessageId: aws.String("id")}, nil
	}}}
	if _, err := c.Send(t.Context(), in); err != nil {
		t.Fatal(err)
	}
}

func TestSendInvalidInput(t *testing.T) {
	cases := map[string]func(*sending.SendInput){
		"no raw":              func(in *sending.SendInput) { in.Raw = nil },
		"no from":             func(in *sending.SendInput) { in.From = "" },
		"no to":               func(in *sending.SendInput) { in.To = "" },
		"tag name with dot":   func(in *sending.SendInput) { in.Tags = map[string]string{"email.id": "x"} },
		"tag value space":     func(in *sending.SendInput) { in.Tags = map[string]string{"email_id": "a b"} },
		"tag value colon":     func(in *sending.SendInput) { in.Tags = map[string]string{"email_id": "ws:1"} },
		"tag value non-ascii": func(in *sending.SendInput) { in.Tags = map[string]string{"email_id": "é"} },
		"tag value empty":     func(in *sending.SendInput) { in.Tags = map[string]string{"email_id": ""} },
		"tag name empty":      func(in *sending.SendInput) { in.Tags = map[string]string{"": "x"} },
		"tag value too long":  func(in *sending.SendInput) { in.Tags = map[string]string{"email_id": strings.Repeat("a", 257)} },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			in := sendInput()
			mutate(&in)
			c := &ses.Client{API: &fakeAPI{SendEmailFn: func(context.Context, *sesv2.SendEmailInput) (*sesv2.SendEmailOutput, error) {
				t.Fatal("SES called with invalid input")
				return nil, nil
			}}}
			if _, err := c.Send(t.Context(), in); !errors.Is(err, ses.ErrInvalidInput) {
				t.Fatalf("err = %v, want ErrInvalidInput", err)
			}
		})
	}
	// The longest legal tag passes.
	in := sendInput()
	in.Tags = map[string]string{strings.Repeat("n", 256): strings.Repeat("V-_9", 64)}
	c := &ses.Client{API: &fakeAPI{SendEmailFn: func(context.Context, *sesv2.SendEmailInput) (*sesv2.SendEmailOutput, error) {
		return &sesv2.SendEmailOutput{MessageId: aws.String("id")}, nil
	}}}
	if _, err := c.Send(t.Context(), in); err != nil {
		t.Fatalf("256-character tag: %v", err)
	}
}

// sdkError wraps exc the way the SDK returns a service error.
func sdkError(status int, exc error) error {
	return &smithy.OperationError{ServiceID: "SESv2", OperationName: "SendEmail", Err: &awshttp.ResponseError{
		RequestID: "req-1",
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      exc,
		},
	}}
}

// afterRetries wraps err as the SDK does once its retry budget is spent.
func afterRetries(err error) error {
	var op *smithy.OperationError
	errors.As(err, &op)
	op.Err = &retry.MaxAttemptsError{Attempt: 3, Err: op.Err}
	return op
}

func TestSendErrors(t *testing.T) {
	secret := "Email address is not verified: bob@private.example.test"
	cases := []struct {
		name   string
		err    error
		class  error // ErrRejected, ErrThrottled or nil (transient)
		code   string
		reason string
	}{
		{"message rejected", sdkError(400, &types.MessageRejected{Message: aws.String(secret)}), ses.ErrRejected,
			"MessageRejected", "an address or domain is not verified in SES"},
		{"message too large", sdkError(400, &types.MessageRejected{Message: aws.String("Message length is more than 10485760 bytes long")}),
			ses.ErrRejected, "MessageRejected", "the message is too large"},
		{"mail from not verified", sdkError(400, &types.MailFromDomainNotVerifiedException{Message: aws.String(secret)}), ses.ErrRejected,
			"MailFromDomainNotVerifiedException", "the MAIL FROM domain is not verified"},
		{"account suspended", sdkError(400, &types.AccountSuspendedException{Message: aws.String(secret)}), ses.ErrRejected,
			"AccountSuspendedException", "the sending account is suspended"},
		{"sending paused", sdkError(400, &types.SendingPausedException{Message: aws.String(secret)}), ses.ErrRejected,
			"SendingPausedException", "sending is paused for the account or configuration set"},
		{"bad request", sdkError(400, &types.BadRequestException{Message: aws.String(secret)}), ses.ErrRejected,
			"BadRequestException", "SES refused the request as invalid"},
		{"too many requests", afterRetries(sdkError(429, &types.TooManyRequestsException{Message: aws.String("slow down")})), ses.ErrThrottled, "", ""},
		{"limit exceeded", sdkError(400, &types.LimitExceededException{Message: aws.String("quota")}), ses.ErrThrottled, "", ""},
		{"generic throttling code", afterRetries(sdkError(400, &smithy.GenericAPIError{Code: "Throttling"})), ses.ErrThrottled, "", ""},
		{"bare 429", sdkError(429, &smithy.GenericAPIError{Code: "SomethingNew"}), ses.ErrThrottled, "", ""},
		{"internal error", afterRetries(sdkError(500, &types.InternalServiceErrorException{Message: aws.String("oops")})), nil, "", ""},
		{"config set not found", sdkError(404, &types.NotFoundException{Message: aws.String("no such configuration set")}), nil, "", ""},
		{"deadline", context.DeadlineExceeded, nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &ses.Client{API: &fakeAPI{SendEmailFn: func(context.Context, *sesv2.SendEmailInput) (*sesv2.SendEmailOutput, error) {
				return nil, tc.err
			}}}
			id, err := c.Send(t.Context(), sendInput())
			if err == nil || id != "" {
				t.Fatalf("Send = %q, %v", id, err)
			}
			for _, class := range []error{ses.ErrRejected, ses.ErrThrottled} {
				if got := errors.Is(err, class); got != (class == tc.class) {
					t.Errorf("errors.Is(%v, %v) = %v", err, class, got)
				}
			}
			// The SES error stays reachable for logs and finer checks.
			if !errors.Is(err, tc.err) {
				var apiErr smithy.APIError
				if !errors.As(err, &apiErr) && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("original error lost: %v", err)
				}
			}
			// sending knows a refusal only as a permanent failure with a
			// safe message; everything else it tries again.
			if got := fail.IsPermanent(err); got != (tc.class == ses.ErrRejected) {
				t.Errorf("fail.IsPermanent = %v", got)
			}
			if tc.class != ses.ErrRejected {
				return
			}
			if got := fail.MessageOf(err); got != tc.reason {
				t.Errorf("fail.MessageOf = %q, want the reason %q", got, tc.reason)
			}
			var rej *ses.RejectedError
			if !errors.As(err, &rej) {
				t.Fatalf("%v is not a *RejectedError", err)
			}
			if rej.Code != tc.code || rej.Reason != tc.reason {
				t.Errorf("RejectedError = {%q, %q}, want {%q, %q}", rej.Code, rej.Reason, tc.code, tc.reason)
			}
			if strings.Contains(err.Error(), "private.example.test") {
				t.Errorf("error text leaks the SES message: %v", err)
			}
		})
	}
}

func TestCreateDomain(t *testing.T) {
	var got *sesv2.CreateEmailIdentityInput
	c := &ses.Client{API: &fakeAPI{
		CreateEmailIdentityFn: func(_ context.Context, req *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error) {
			got = req
			return &sesv2.CreateEmailIdentityOutput{
				IdentityType: types.IdentityTypeDomain,
				DkimAttributes: &types.DkimAttributes{
					Status: types.DkimStatusPending,
					Tokens: []string{"tok1", "tok2", "tok3"},
				},
			}, nil
		},
	}}
	records, err := c.CreateDomain(t.Context(), "Mail.Example.TEST.", "sesame-tracking-off")
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.EmailIdentity) != "mail.example.test" {
		t.Errorf("EmailIdentity = %q", aws.ToString(got.EmailIdentity))
	}
	if aws.ToString(got.ConfigurationSetName) != "sesame-tracking-off" {
		t.Errorf("ConfigurationSetName = %q", aws.ToString(got.ConfigurationSetName))
	}
	want := &types.DkimSigningAttributes{NextSigningKeyLength: types.DkimSigningKeyLengthRsa2048Bit}
	if got.DkimSigningAttributes == nil || got.DkimSigningAttributes.NextSigningKeyLength != want.NextSigningKeyLength ||
		got.DkimSigningAttributes.DomainSigningAttributesOrigin != "" || got.DkimSigningAttributes.DomainSigningPrivateKey != nil ||
		got.DkimSigningAttributes.DomainSigningSelector != nil {
		t.Errorf("DkimSigningAttributes = %+v, want Easy DKIM with a 2048-bit key", got.DkimSigningAttributes)
	}
	wantRecords := []ses.DNSRecord{
		{Type: "CNAME", Name: "tok1._domainkey.mail.example.test", Value: "tok1.dkim.amazonses.com"},
		{Type: "CNAME", Name: "tok2._domainkey.mail.example.test", Value: "tok2.dkim.amazonses.com"},
		{Type: "CNAME", Name: "tok3._domainkey.mail.example.test", Value: "tok3.dkim.amazonses.com"},
	}
	if !reflect.DeepEqual(records, wantRecords) {
		t.Errorf("records = %+v, want %+v", records, wantRecords)
	}
}

func TestCreateDomainWithoutConfigurationSet(t *testing.T) {
	c := &ses.Client{API: &fakeAPI{
		CreateEmailIdentityFn: func(_ context.Context, req *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error) {
			if req.ConfigurationSetName != nil {
				t.Errorf("ConfigurationSetName = %q, want unset", *req.ConfigurationSetName)
			}
			return &sesv2.CreateEmailIdentityOutput{DkimAttributes: &types.DkimAttributes{Tokens: []string{"t"}}}, nil
		},
	}}
	if _, err := c.CreateDomain(t.Context(), "example.test", ""); err != nil {
		t.Fatal(err)
	}
}

func TestCreateDomainAlreadyExists(t *testing.T) {
	var asked string
	c := &ses.Client{API: &fakeAPI{
		CreateEmailIdentityFn: func(context.Context, *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error) {
			return nil, sdkError(400, &types.AlreadyExistsException{Message: aws.String("exists")})
		},
		GetEmailIdentityFn: func(_ context.Context, req *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error) {
			asked = aws.ToString(req.EmailIdentity)
			return &sesv2.GetEmailIdentityOutput{DkimAttributes: &types.DkimAttributes{
				Status:            types.DkimStatusSuccess,
				Tokens:            []string{"a", "b", "c"},
				SigningHostedZone: aws.String("dkim.af-south-1.amazonses.com."),
			}}, nil
		},
	}}
	records, err := c.CreateDomain(t.Context(), "example.test", "cs")
	if err != nil {
		t.Fatal(err)
	}
	if asked != "example.test" {
		t.Errorf("GetEmailIdentity(%q)", asked)
	}
	if len(records) != 3 || records[2] != (ses.DNSRecord{Type: "CNAME", Name: "c._domainkey.example.test", Value: "c.dkim.af-south-1.amazonses.com"}) {
		t.Errorf("records = %+v", records)
	}
}

func TestCreateDomainErrors(t *testing.T) {
	boom := sdkError(500, &types.InternalServiceErrorException{Message: aws.String("boom")})
	c := &ses.Client{API: &fakeAPI{
		CreateEmailIdentityFn: func(context.Context, *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error) {
			return nil, boom
		},
	}}
	if _, err := c.CreateDomain(t.Context(), "example.test", ""); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the SES error wrapped", err)
	}
	for _, domain := range []string{"", "localhost", "bad domain.test", "-a.example.test", "a..test", "a_b.test", "é.test", strings.Repeat("a", 64) + ".test"} {
		if _, err := c.CreateDomain(t.Context(), domain, ""); !errors.Is(err, ses.ErrInvalidInput) {
			t.Errorf("CreateDomain(%q) = %v, want ErrInvalidInput", domain, err)
		}
	}
}

func TestDomainStatus(t *testing.T) {
	var asked string
	c := &ses.Client{API: &fakeAPI{
		GetEmailIdentityFn: func(_ context.Context, req *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error) {
			asked = aws.ToString(req.EmailIdentity)
			return &sesv2.GetEmailIdentityOutput{
				VerifiedForSendingStatus: true,
				DkimAttributes:           &types.DkimAttributes{Status: types.DkimStatusSuccess, Tokens: []string{"x", "y", "z"}},
			}, nil
		},
	}}
	st, err := c.DomainStatus(t.Context(), "Example.test")
	if err != nil {
		t.Fatal(err)
	}
	if asked != "example.test" {
		t.Errorf("GetEmailIdentity(%q)", asked)
	}
	if !st.Verified || st.DKIMStatus != "SUCCESS" || len(st.Records) != 3 ||
		st.Records[0] != (ses.DNSRecord{Type: "CNAME", Name: "x._domainkey.example.test", Value: "x.dkim.amazonses.com"}) {
		t.Errorf("status = %+v", st)
	}
}

func TestDomainStatusErrors(t *testing.T) {
	var getErr error
	c := &ses.Client{API: &fakeAPI{
		GetEmailIdentityFn: func(context.Context, *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error) {
			return nil, getErr
		},
	}}
	getErr = sdkError(404, &types.NotFoundException{Message: aws.String("no identity")})
	if _, err := c.DomainStatus(t.Context(), "example.test"); !errors.Is(err, ses.ErrIdentityNotFound) {
		t.Errorf("not found: err = %v, want ErrIdentityNotFound", err)
	}
	getErr = sdkError(429, &types.TooManyRequestsException{})
	if _, err := c.DomainStatus(t.Context(), "example.test"); err == nil || errors.Is(err, ses.ErrIdentityNotFound) {
		t.Errorf("throttled: err = %v", err)
	}
	// A pending identity that has no DKIM attributes yet is not an error.
	getErr = nil
	c.API.(*fakeAPI).GetEmailIdentityFn = func(context.Context, *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error) {
		return &sesv2.GetEmailIdentityOutput{}, nil
	}
	if st, err := c.DomainStatus(t.Context(), "example.test"); err != nil || st.Verified || st.DKIMStatus != "" || st.Records != nil {
		t.Errorf("empty identity: %+v, %v", st, err)
	}
}
