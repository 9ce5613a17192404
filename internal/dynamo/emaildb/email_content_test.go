package emaildb_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/email"
)

// What the owner's email page reads back is what the send kept, byte for
// byte, whatever the html and attachments hold.
func TestKeptContentRoundTrip(t *testing.T) {
	t.Parallel()
	store, _ := dynamotest.NewStore(t)
	s := emaildb.Emails{Table: store.Table}
	newsletter := readNewsletter(t)
	cases := map[string]email.KeptContent{
		"10 KB newsletter": {HTML: newsletter},
		"html and attachments": {HTML: "<p>Your invoice &amp; receipt: \"£12\"\n</p>", Attachments: []email.AttachmentInfo{
			{Filename: "invoice-0042.pdf", ContentType: "application/pdf", Size: 48213},
			{Filename: "reçu été.txt", ContentType: "text/plain; charset=utf-8", Size: 0},
		}},
		"attachments, html too large to keep":  {Attachments: []email.AttachmentInfo{{Filename: "a.csv", ContentType: "text/csv", Size: 1 << 30}}},
		"nothing":                              {},
		"html of bytes that look like a count": {HTML: "\x05\xff\x00<b>"},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws, id := uuid.NewString(), uuid.Must(uuid.NewV7()).String()
			put, refPut, err := s.KeptContentPut(ws, id, want, email.ContentRef{})
			if err != nil || refPut != nil {
				t.Fatal(refPut, err)
			}
			if err := s.Put(t.Context(), put); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetContent(t.Context(), ws, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back %+v, kept %+v", got, want)
			}
		})
	}
}

// A content item written before the packed form (gzip'd JSON in "data")
// still shows on the owner's page until its TTL removes it.
func TestKeptContentWrittenBefore(t *testing.T) {
	t.Parallel()
	store, _ := dynamotest.NewStore(t)
	s := emaildb.Emails{Table: store.Table}
	ws, id := uuid.NewString(), uuid.Must(uuid.NewV7()).String()
	want := email.KeptContent{HTML: readNewsletter(t), Attachments: []email.AttachmentInfo{{Filename: "terms.pdf", ContentType: "application/pdf", Size: 1234}}}
	var data bytes.Buffer
	zw := gzip.NewWriter(&data)
	if err := json.NewEncoder(zw).Encode(want); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	old := struct {
		PK        string `dynamodbav:"pk"`
		SK        string `dynamodbav:"sk"`
		Data      []byte `dynamodbav:"data"`
		ExpiresAt int64  `dynamodbav:"expires_at"`
	}{dynamo.EmailContentPK(ws, id), emaildb.KeptContentSK, data.Bytes(), time.Now().Add(24 * time.Hour).Unix()}
	if err := store.Table.PutItem(t.Context(), old, dynamo.NoCondition); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetContent(t.Context(), ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, kept %+v", got, want)
	}
}

// The 10 KB newsletter's content item as DynamoDB bills it: 1,745 bytes
// as gzip'd JSON at BestSpeed, 1,501 whole (still 2 write units: its
// html alone deflates to 1,389 bytes, past 1 KB), as the day's first
// send of its layout writes it; personalised, as every later send of the
// day stores it against that first one, under 1 KB: 1 write unit.
func TestKeptContentSize(t *testing.T) {
	t.Parallel()
	s := emaildb.Emails{Table: &dynamo.Table{Name: "sesame"}}
	ws, newsletter := uuid.NewString(), readNewsletter(t)
	ref := email.ContentRef{Layout: "layout", Day: time.Now().UTC().Format(time.DateOnly)}
	whole, _, err := s.KeptContentPut(ws, uuid.Must(uuid.NewV7()).String(), email.KeptContent{HTML: newsletter}, email.ContentRef{})
	if err != nil {
		t.Fatal(err)
	}
	size := cost.ItemSize(whole.Item)
	t.Logf("the 10 KB newsletter's content item, whole: %d bytes, %.0f write units", size, cost.WriteUnits(0, size))
	if size > 1550 {
		t.Errorf("the 10 KB newsletter's content item is %d bytes, want at most 1550 (it was 1745)", size)
	}
	first, refPut, err := s.KeptContentPut(ws, uuid.Must(uuid.NewV7()).String(), email.KeptContent{HTML: personalise(newsletter, 1)}, ref)
	if err != nil || refPut == nil {
		t.Fatal(refPut, err)
	}
	size = cost.ItemSize(first.Item)
	t.Logf("personalised, the day's first of its layout (whole): %d bytes, %.0f write units; its reference %d bytes",
		size, cost.WriteUnits(0, size), cost.ItemSize(refPut.Item))
	ref.Dict, ref.Sum = referenceOf(t, refPut)
	delta, refPut, err := s.KeptContentPut(ws, uuid.Must(uuid.NewV7()).String(), email.KeptContent{HTML: personalise(newsletter, 2)}, ref)
	if err != nil || refPut != nil {
		t.Fatal(refPut, err)
	}
	size = cost.ItemSize(delta.Item)
	t.Logf("against the day's reference: %d bytes, %.0f write units", size, cost.WriteUnits(0, size))
	if cost.WriteUnits(0, size) != 1 {
		t.Errorf("the personalised newsletter's content item against its reference is %d bytes, want under 1 KB", size)
	}
}

func readNewsletter(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../bench/testdata/newsletter-10k.html")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
