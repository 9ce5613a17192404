package emaildb

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

// contentRefItem is a layout's reference content of one UTC day, in the
// layout verdicts' partition: the dictionary that day's kept content of
// the layout is deflated with. Written once (the day's first send of
// the layout), never changed.
type contentRefItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Z         []byte `dynamodbav:"z"` // raw DEFLATE of the dictionary
	Sum       []byte `dynamodbav:"h"` // its refSum
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// maxDict is as much of a reference as DEFLATE uses: it looks back 32 KB,
// so only the packed content's last 32 KB are kept as the dictionary.
const maxDict = 32 << 10

// refSum is a dictionary's short hash: a difference is inflated only
// with the dictionary it was made with.
func refSum(dict []byte) []byte {
	h := sha256.Sum256(dict)
	return h[:8]
}

// contentRefExpiry is when the reference of day expires: the end of that
// day plus email.ContentKept, when the last content stored against it
// expires.
func contentRefExpiry(day string) (int64, error) {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return 0, fmt.Errorf("reference day %q: %w", day, err)
	}
	return t.Add(24*time.Hour + email.ContentKept).Unix(), nil
}

// contentRefPut is the put of ref's day's reference made of packed, if
// there is none yet: a concurrent first send may have put it already.
func (s *Emails) contentRefPut(workspaceID string, ref email.ContentRef, packed []byte) (*ddbtypes.Put, error) {
	dict := packed[max(0, len(packed)-maxDict):]
	z, err := deflateContent(dict, nil, nil)
	if err != nil {
		return nil, err
	}
	expires, err := contentRefExpiry(ref.Day)
	if err != nil {
		return nil, err
	}
	return s.PutOf(contentRefItem{PK: dynamo.TemplatePK(workspaceID), SK: dynamo.ContentRefSK(ref.Layout, ref.Day), Z: z, Sum: refSum(dict), ExpiresAt: expires}, dynamo.ItemAbsent())
}

// ContentRefOf is the reference of layout's day read as item by a send's
// context read. One that does not check out has no Dict: the send keeps
// its content whole and writes no other.
func ContentRefOf(item map[string]ddbtypes.AttributeValue, layout, day string) (email.ContentRef, error) {
	var it contentRefItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return email.ContentRef{}, err
	}
	ref := email.ContentRef{Layout: layout, Day: day, Stored: true, Sum: it.Sum}
	if dict, err := refDict(it, it.Sum); err == nil {
		ref.Dict = dict
	}
	return ref, nil
}

// refDict is the dictionary of reference it, if it inflates to one whose
// refSum is sum.
func refDict(it contentRefItem, sum []byte) ([]byte, error) {
	dict, err := inflate(it.Z, nil, maxDict)
	if err != nil || !bytes.Equal(refSum(dict), sum) || !bytes.Equal(it.Sum, sum) {
		return nil, email.ErrContentNotKept
	}
	return dict, nil
}

// contentRefDict reads the dictionary a kept content's difference was
// made with: the reference sk of its layout's partition, whose refSum is
// sum. Gone, expired or not that dictionary, the content is not kept.
func (s *Emails) contentRefDict(ctx context.Context, workspaceID, sk string, sum []byte) ([]byte, error) {
	var it contentRefItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.TemplatePK(workspaceID), sk), &it)
	if err != nil {
		return nil, fmt.Errorf("get email content's reference: %w", err)
	}
	if !found || !dynamo.IsContentRefSK(sk) || time.Unix(it.ExpiresAt, 0).Before(s.Time()) {
		return nil, email.ErrContentNotKept
	}
	return refDict(it, sum)
}

// dictDeflaters are pools of writers primed with one reference each, by
// level and the reference's refSum: a writer keeps its dictionary across
// Reset, and a new one allocates and clears hundreds of KB. An instance
// sends few layouts a day; past maxDictPools the pools start over.
var dictPools = struct {
	sync.Mutex
	m map[string]*sync.Pool
}{m: map[string]*sync.Pool{}}

const maxDictPools = 64

func dictDeflaters(level int, dict, sum []byte) *sync.Pool {
	key := strconv.Itoa(level) + "#" + string(sum)
	dictPools.Lock()
	defer dictPools.Unlock()
	if p, ok := dictPools.m[key]; ok {
		return p
	}
	if len(dictPools.m) >= maxDictPools {
		clear(dictPools.m)
	}
	dict = bytes.Clone(dict)
	p := &sync.Pool{New: func() any {
		zw, _ := flate.NewWriterDict(nil, level, dict) // a valid level: no error
		return zw
	}}
	dictPools.m[key] = p
	return p
}
