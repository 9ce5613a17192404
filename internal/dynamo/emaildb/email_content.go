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

// keptContentItem is written with Z (the whole content) or, once its
// layout has a reference for the day, D, Ref and RefSum (its difference
// from that reference). Items written before either hold Data, gzip'd
// JSON; they are read until their TTL removes them.
type keptContentItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Z         []byte `dynamodbav:"z,omitempty"`    // raw DEFLATE of packContent
	D         []byte `dynamodbav:"d,omitempty"`    // the same with the reference as dictionary
	Ref       string `dynamodbav:"r,omitempty"`    // the reference's sk in its layout's partition
	RefSum    []byte `dynamodbav:"h,omitempty"`    // refSum of the reference's dictionary
	Data      []byte `dynamodbav:"data,omitempty"` // before: gzip of the JSON of email.KeptContent
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// KeptContentPut is the write of a transactional email's kept content
// (one item in a partition of its own, expiring after
// email.ContentKept), made with the email's own write. With ref's
// dictionary (the day's reference of the email's layout) it is stored
// as its difference from it, and expires no later than the reference;
// without one it is stored whole, and refPut is the conditional put of
// the day's reference made from it (nil when ref names no layout or the
// day has one that did not check out). HTML too large for one item is
// left out: the view says so.
func (s *Emails) KeptContentPut(workspaceID, emailID string, c email.KeptContent, ref email.ContentRef) (put, refPut *ddbtypes.Put, err error) {
	packed := packContent(c)
	z, err := deflateContent(packed, ref.Dict, ref.Sum)
	if err == nil && len(z) > maxKeptContentBytes {
		c.HTML = ""
		packed = packContent(c)
		z, err = deflateContent(packed, ref.Dict, ref.Sum)
	}
	if err != nil {
		return nil, nil, err
	}
	it := keptContentItem{PK: dynamo.EmailContentPK(workspaceID, emailID), SK: KeptContentSK, ExpiresAt: s.Time().Add(email.ContentKept).Unix()}
	switch {
	case ref.Dict != nil:
		refExpires, err := contentRefExpiry(ref.Day)
		if err != nil {
			return nil, nil, err
		}
		it.D, it.Ref, it.RefSum = z, dynamo.ContentRefSK(ref.Layout, ref.Day), ref.Sum
		it.ExpiresAt = min(it.ExpiresAt, refExpires) // no difference outlives its reference
	case ref.Layout != "" && ref.Day != "" && !ref.Stored:
		it.Z = z
		if refPut, err = s.contentRefPut(workspaceID, ref, packed); err != nil {
			return nil, nil, err
		}
	default:
		it.Z = z
	}
	put, err = s.PutOf(it, dynamo.NoCondition)
	return put, refPut, err
}

// GetContent reads a transactional email's kept content. Stored as a
// difference from a reference that is gone or does not check out, it is
// email.ErrContentNotKept: never bytes inflated with the wrong dictionary.
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
	switch {
	case it.D != nil:
		dict, err := s.contentRefDict(ctx, workspaceID, it.Ref, it.RefSum)
		if err != nil {
			return email.KeptContent{}, err
		}
		c, err = inflateContent(it.D, dict)
	case it.Z != nil:
		c, err = inflateContent(it.Z, nil)
	default:
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

// deflateContent is packed deflated (raw DEFLATE: gzip's header and
// trailer are 18 bytes the item would pay for nothing), primed with dict
// (whose refSum is sum) when there is one.
func deflateContent(packed, dict, sum []byte) ([]byte, error) {
	level := 4
	if len(packed) <= bestUpTo {
		level = flate.BestCompression
	}
	pool := deflaters[level]
	if dict != nil {
		pool = dictDeflaters(level, dict, sum)
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
	if dict != nil && buf.Len() > 0 && buf.Bytes()[0]>>1&3 == 0 {
		// A first block stored (BTYPE 00) after a dictionary carries the
		// dictionary's bytes too: compress/flate's fillWindow leaves the
		// block's start at 0. Such content barely compresses anyway:
		// without a dictionary it inflates the same with or without one.
		return deflateContent(packed, nil, nil)
	}
	return buf.Bytes(), nil
}

// inflateContent is deflateContent's inverse, given the same dictionary.
func inflateContent(z, dict []byte) (email.KeptContent, error) {
	b, err := inflate(z, dict, maxContentRead)
	if err != nil {
		return email.KeptContent{}, err
	}
	return unpackContent(b)
}

var errTooLong = errors.New("inflates past its bound")

// inflate is z inflated with dict, refused past limit bytes.
func inflate(z, dict []byte, limit int64) ([]byte, error) {
	zr := flate.NewReaderDict(bytes.NewReader(z), dict)
	defer zr.Close()
	b, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errTooLong
	}
	return b, err
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
