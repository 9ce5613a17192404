package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/sesame-mail/sesame/internal/ses"
)

// DataEnv names the folder of the local stack's data in .sesame/dev.env
// (SESAME_LOCAL_DATA): the console reads it to act on the local stack's
// SES identities and raw messages, which the emulators do not keep.
const DataEnv = "SESAME_LOCAL_DATA"

// IdentitiesFile is where the local stack keeps its SES identities, in
// its data folder.
func IdentitiesFile(dataDir string) string { return filepath.Join(dataDir, "ses-identities.json") }

// LocalSES is SES v2 as the local stack has it: messages go to Next (the
// SES emulator, aws-ses-v2-local, which has no identity API), and domain
// identities are kept in a file, answered as SES answers them. A new
// identity is pending, as SES answers CreateEmailIdentity; read back, it
// is verified with DKIM SUCCESS, as SES reads it once the DNS records are
// published: there is no DNS to wait for locally. The ses.Client above it
// is production's, so `sesame domains add` and `status` run their real
// code against it.
type LocalSES struct {
	// Path is the identities file (IdentitiesFile); it is created on the
	// first identity.
	Path string
	Next ses.API
	Now  func() time.Time
	mu   sync.Mutex
}

var _ ses.API = (*LocalSES)(nil)

// localIdentity is one identity in the file.
type localIdentity struct {
	Tokens           []string  `json:"dkim_tokens"`
	ConfigurationSet string    `json:"configuration_set,omitempty"`
	CreatedAt        time.Time `json:"created_at"`
}

// LocalSendRate is the maximum send rate the local stack's account
// reports: the emulator has no account, and campaigns pace to this.
const LocalSendRate = 100

// GetAccount answers as SES does for an account out of the sandbox at
// LocalSendRate emails per second.
func (l *LocalSES) GetAccount(context.Context, *sesv2.GetAccountInput, ...func(*sesv2.Options)) (*sesv2.GetAccountOutput, error) {
	return &sesv2.GetAccountOutput{ProductionAccessEnabled: true, SendingEnabled: true,
		SendQuota: &types.SendQuota{MaxSendRate: LocalSendRate, Max24HourSend: 1_000_000}}, nil
}

// SendEmail hands the message to the emulator.
func (l *LocalSES) SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	if l.Next == nil {
		return nil, errors.New("local SES: no emulator to send through")
	}
	return l.Next.SendEmail(ctx, in, optFns...)
}

// CreateEmailIdentity records a new identity with three Easy DKIM tokens;
// an existing one is AlreadyExistsException, as in SES.
func (l *LocalSES) CreateEmailIdentity(_ context.Context, in *sesv2.CreateEmailIdentityInput, _ ...func(*sesv2.Options)) (*sesv2.CreateEmailIdentityOutput, error) {
	name := strings.ToLower(aws.ToString(in.EmailIdentity))
	if name == "" {
		return nil, &types.BadRequestException{Message: aws.String("EmailIdentity is required")}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	all, err := l.read()
	if err != nil {
		return nil, err
	}
	if _, ok := all[name]; ok {
		return nil, &types.AlreadyExistsException{Message: aws.String("Email identity " + name + " already exists.")}
	}
	id := localIdentity{Tokens: make([]string, 3), ConfigurationSet: aws.ToString(in.ConfigurationSetName), CreatedAt: l.now()}
	for i := range id.Tokens {
		id.Tokens[i] = dkimToken()
	}
	all[name] = id
	if err := l.write(all); err != nil {
		return nil, err
	}
	return &sesv2.CreateEmailIdentityOutput{
		IdentityType: types.IdentityTypeDomain, VerifiedForSendingStatus: false,
		DkimAttributes: id.dkim(types.DkimStatusPending),
	}, nil
}

// GetEmailIdentity answers a recorded identity as verified; an unknown one
// is NotFoundException, as in SES.
func (l *LocalSES) GetEmailIdentity(_ context.Context, in *sesv2.GetEmailIdentityInput, _ ...func(*sesv2.Options)) (*sesv2.GetEmailIdentityOutput, error) {
	name := strings.ToLower(aws.ToString(in.EmailIdentity))
	l.mu.Lock()
	all, err := l.read()
	l.mu.Unlock()
	if err != nil {
		return nil, err
	}
	id, ok := all[name]
	if !ok {
		return nil, &types.NotFoundException{Message: aws.String("Email identity " + name + " does not exist.")}
	}
	out := &sesv2.GetEmailIdentityOutput{
		IdentityType: types.IdentityTypeDomain, VerifiedForSendingStatus: true, FeedbackForwardingStatus: true,
		VerificationStatus: types.VerificationStatusSuccess, DkimAttributes: id.dkim(types.DkimStatusSuccess),
	}
	if id.ConfigurationSet != "" {
		out.ConfigurationSetName = aws.String(id.ConfigurationSet)
	}
	return out, nil
}

func (id localIdentity) dkim(status types.DkimStatus) *types.DkimAttributes {
	return &types.DkimAttributes{
		SigningEnabled: true, Status: status, Tokens: id.Tokens,
		SigningAttributesOrigin: types.DkimSigningAttributesOriginAwsSes,
		NextSigningKeyLength:    types.DkimSigningKeyLengthRsa2048Bit,
	}
}

func (l *LocalSES) now() time.Time {
	if l.Now != nil {
		return l.Now().UTC()
	}
	return time.Now().UTC()
}

// dkimToken is a token like SES's: 32 lowercase letters and digits.
func dkimToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never returns an error since Go 1.24
	return hex.EncodeToString(b)
}

// read loads the identities file; a missing file holds none.
func (l *LocalSES) read() (map[string]localIdentity, error) {
	var f struct {
		Identities map[string]localIdentity `json:"identities"`
	}
	data, err := os.ReadFile(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]localIdentity{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("local SES identities: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("local SES identities %s: %w", l.Path, err)
	}
	if f.Identities == nil {
		f.Identities = map[string]localIdentity{}
	}
	return f.Identities, nil
}

// write replaces the identities file at once (a temporary file renamed),
// so a console reading it concurrently sees the old or the new whole.
func (l *LocalSES) write(all map[string]localIdentity) error {
	data, err := json.MarshalIndent(map[string]any{"identities": all}, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(l.Path, data)
}

// writeFileAtomic writes data to path through a temporary file in the same
// folder, creating the folder.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
