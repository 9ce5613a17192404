package devstack_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/ses"
)

// localIdentities is the local stack's SES identities in a fresh folder,
// behind production's SES adapter.
func localIdentities(t *testing.T) *ses.Client {
	t.Helper()
	return &ses.Client{API: &devstack.LocalSES{Path: devstack.IdentitiesFile(t.TempDir())}}
}

// The SES emulator has no identity API; the local stack's LocalSES answers
// it as SES does, so production's adapter (and `sesame domains`) works on
// it: a new identity is pending with three Easy DKIM records, then reads
// back verified; it is kept in a file, for the next process.
func TestLocalSESIdentities(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "data", "ses-identities.json")
	sent := &recordingSES{}
	client := &ses.Client{API: &devstack.LocalSES{Path: path, Next: sent}}

	records, err := client.CreateDomain(ctx, "Example.COM", "sesame-full")
	if err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`^([a-z0-9]{32})\._domainkey\.example\.com$`)
	if len(records) != 3 {
		t.Fatalf("records = %+v, want three DKIM CNAMEs", records)
	}
	for _, r := range records {
		m := token.FindStringSubmatch(r.Name)
		if r.Type != "CNAME" || m == nil || r.Value != m[1]+".dkim.amazonses.com" {
			t.Errorf("record %+v is not an Easy DKIM CNAME of example.com", r)
		}
	}
	again, err := client.CreateDomain(ctx, "example.com", "")
	if err != nil || !slices.Equal(again, records) {
		t.Errorf("adding it again = %+v, %v; want its records %+v", again, err, records)
	}

	// Another process (the console after `sesame dev`) reads the file.
	other := &ses.Client{API: &devstack.LocalSES{Path: path}}
	st, err := other.DomainStatus(ctx, "example.com")
	if err != nil {
		t.Fatal(err)
	}
	if want := (identity.ProviderStatus{Verified: true, DKIMStatus: "SUCCESS", Records: records}); !st.Verified || st.DKIMStatus != want.DKIMStatus || !slices.Equal(st.Records, records) {
		t.Errorf("status = %+v, want %+v", st, want)
	}
	if _, err := other.DomainStatus(ctx, "never-added.example"); !errors.Is(err, ses.ErrIdentityNotFound) {
		t.Errorf("status of an unknown identity: err = %v, want ses.ErrIdentityNotFound", err)
	}

	// Sending is the emulator's.
	if _, err := client.API.SendEmail(ctx, &sesv2.SendEmailInput{FromEmailAddress: aws.String("a@example.com")}); err != nil || sent.n != 1 {
		t.Errorf("SendEmail: err %v, %d sends reached the emulator, want 1", err, sent.n)
	}
}

// recordingSES counts the sends handed to it.
type recordingSES struct {
	ses.API
	n int
}

func (r *recordingSES) SendEmail(context.Context, *sesv2.SendEmailInput, ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	r.n++
	return &sesv2.SendEmailOutput{MessageId: aws.String("m1")}, nil
}
