package emaildb

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

// KeptContentSK is the sort key of an email's kept content.
const KeptContentSK = "CONTENT"

// maxKeptContentBytes keeps a content item under DynamoDB's 400 KB: past it
// only the attachments' names and sizes are kept.
const maxKeptContentBytes = 350 << 10

type keptContentItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Data      []byte `dynamodbav:"data"` // gzip of the JSON of email.KeptContent
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// KeptContentPut is the write of a transactional email's kept content
// (gzip'd JSON, one item in a partition of its own, expiring after
// email.ContentKept), made with the email's own write. HTML too large for
// one item is left out: the view says so.
func (s *Emails) KeptContentPut(workspaceID, emailID string, c email.KeptContent) (*ddbtypes.Put, error) {
	data, err := GzipJSON(c)
	if err == nil && len(data) > maxKeptContentBytes {
		c.HTML = ""
		data, err = GzipJSON(c)
	}
	if err != nil {
		return nil, err
	}
	return s.PutOf(keptContentItem{PK: dynamo.EmailContentPK(workspaceID, emailID), SK: KeptContentSK, Data: data, ExpiresAt: s.Time().Add(email.ContentKept).Unix()}, dynamo.NoCondition)
}

// GetContent reads a transactional email's kept content.
func (s *Emails) GetContent(ctx context.Context, workspaceID, emailID string) (email.KeptContent, error) {
	var it keptContentItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.EmailContentPK(workspaceID, emailID), KeptContentSK), &it)
	if err != nil {
		return email.KeptContent{}, fmt.Errorf("get email content: %w", err)
	}
	if !found || time.Unix(it.ExpiresAt, 0).Before(s.Time()) { // TTL deletes lazily
		return email.KeptContent{}, email.ErrContentNotKept
	}
	var c email.KeptContent
	zr, err := gzip.NewReader(bytes.NewReader(it.Data))
	if err != nil {
		return c, fmt.Errorf("read email content: %w", err)
	}
	if err := json.NewDecoder(io.LimitReader(zr, 64<<20)).Decode(&c); err != nil {
		return c, fmt.Errorf("read email content: %w", err)
	}
	return c, nil
}

// gzipWriters keep their compression state between sends: a new writer
// allocates and clears hundreds of KB, more CPU than compressing a
// newsletter at BestSpeed, which html needs (it shrinks about fivefold).
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level: no error
	return zw
}}

// GzipJSON is v as gzip'd JSON (an email's kept content, a held email).
func GzipJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false) // html is most of it: \u003c for < would only grow it
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
