package emaildb

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
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

// maxContentRead bounds what a kept item may inflate to (a 20 MB message's
// html at most).
const maxContentRead = 64 << 20

// keptContentItem is written with Z only. Items written before it hold
// Data, gzip'd JSON; they are read until their TTL removes them.
type keptContentItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Z         []byte `dynamodbav:"z,omitempty"`    // raw DEFLATE of packContent
	Data      []byte `dynamodbav:"data,omitempty"` // before: gzip of the JSON of email.KeptContent
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// KeptContentPut is the write of a transactional email's kept content
// (deflated, one item in a partition of its own, expiring after
// email.ContentKept), made with the email's own write. HTML too large for
// one item is left out: the view says so.
func (s *Emails) KeptContentPut(workspaceID, emailID string, c email.KeptContent) (*ddbtypes.Put, error) {
	z, err := deflateContent(c)
	if err == nil && len(z) > maxKeptContentBytes {
		c.HTML = ""
		z, err = deflateContent(c)
	}
	if err != nil {
		return nil, err
	}
	return s.PutOf(keptContentItem{PK: dynamo.EmailContentPK(workspaceID, emailID), SK: KeptContentSK, Z: z, ExpiresAt: s.Time().Add(email.ContentKept).Unix()}, dynamo.NoCondition)
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
	if it.Z != nil {
		c, err = inflateContent(it.Z)
	} else {
		c, err = gunzipContent(it.Data)
	}
	if err != nil {
		return email.KeptContent{}, fmt.Errorf("read email content: %w", err)
	}
	return c, nil
}

// packContent is c as bytes: the number of attachments, each one's
// filename, content type and size (uvarint lengths and size), then the
// html as it is, to the end. Raw bytes, not JSON: JSON escapes html's
// quotes and newlines and spells every name.
func packContent(c email.KeptContent) []byte {
	b := make([]byte, 0, len(c.HTML)+16+64*len(c.Attachments))
	b = binary.AppendUvarint(b, uint64(len(c.Attachments)))
	for _, a := range c.Attachments {
		b = binary.AppendUvarint(b, uint64(len(a.Filename)))
		b = append(b, a.Filename...)
		b = binary.AppendUvarint(b, uint64(len(a.ContentType)))
		b = append(b, a.ContentType...)
		b = binary.AppendUvarint(b, uint64(a.Size))
	}
	return append(b, c.HTML...)
}

var errPacked = errors.New("malformed kept content")

// unpackContent is packContent's inverse.
func unpackContent(b []byte) (email.KeptContent, error) {
	var c email.KeptContent
	r := bytes.NewReader(b)
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(len(b)) {
		return c, errPacked
	}
	str := func() (string, error) {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > uint64(r.Len()) {
			return "", errPacked
		}
		s := make([]byte, l)
		_, _ = r.Read(s) // l bytes are there
		return string(s), nil
	}
	for range n {
		var a email.AttachmentInfo
		if a.Filename, err = str(); err != nil {
			return c, err
		}
		if a.ContentType, err = str(); err != nil {
			return c, err
		}
		size, err := binary.ReadUvarint(r)
		if err != nil {
			return c, errPacked
		}
		a.Size = int(size)
		c.Attachments = append(c.Attachments, a)
	}
	c.HTML = string(b[len(b)-r.Len():])
	return c, nil
}

// bestUpTo is the packed size up to which content is deflated at best
// compression: the 10 KB newsletter in about 0.1 ms (1,389 bytes, 1,582
// at BestSpeed), every byte of it stored for a month. Past it best
// compression costs several times BestSpeed's CPU (6.7 ms against 1.3 for
// the 100 KB newsletter) for 1 % less than level 4 (1.5 ms).
const bestUpTo = 32 << 10

// deflaters keep their state between sends, one pool a level: a new writer
// allocates and clears hundreds of KB.
var deflaters = map[int]*sync.Pool{flate.BestCompression: deflaterPool(flate.BestCompression), 4: deflaterPool(4)}

func deflaterPool(level int) *sync.Pool {
	return &sync.Pool{New: func() any {
		zw, _ := flate.NewWriter(nil, level) // a valid level: no error
		return zw
	}}
}

// deflateContent is c packed and deflated (raw DEFLATE: gzip's header and
// trailer are 18 bytes the item would pay for nothing).
func deflateContent(c email.KeptContent) ([]byte, error) {
	packed := packContent(c)
	pool := deflaters[4]
	if len(packed) <= bestUpTo {
		pool = deflaters[flate.BestCompression]
	}
	var buf bytes.Buffer
	zw := pool.Get().(*flate.Writer)
	defer pool.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(packed); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func inflateContent(z []byte) (email.KeptContent, error) {
	zr := flate.NewReader(bytes.NewReader(z))
	defer zr.Close()
	b, err := io.ReadAll(io.LimitReader(zr, maxContentRead))
	if err != nil {
		return email.KeptContent{}, err
	}
	return unpackContent(b)
}

// gunzipContent reads an item written before the packed form.
func gunzipContent(data []byte) (email.KeptContent, error) {
	var c email.KeptContent
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return c, err
	}
	err = json.NewDecoder(io.LimitReader(zr, maxContentRead)).Decode(&c)
	return c, err
}

// gzipWriters keep their compression state between sends: a new writer
// allocates and clears hundreds of KB, more CPU than compressing at
// BestSpeed.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // a valid level: no error
	return zw
}}

// GzipJSON is v as gzip'd JSON (a held email).
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
