package emaildb_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/email"
)

// personalise is the newsletter as one recipient's email of its layout:
// a name and an order number in its text, a unique token in a link.
func personalise(html string, n int) string {
	html = strings.Replace(html, "Made to be worn for years.", fmt.Sprintf("Hi reader %d, your order NW-%08d ships today.", n, n*7919), 1)
	return strings.Replace(html, `href="https://northwind.example/?utm_source=newsletter"`,
		`href="https://northwind.example/?utm_source=newsletter&amp;t=`+uuid.NewString()+`"`, 1)
}

// referenceOf is the reference refPut writes, as a send's context read
// finds it.
func referenceOf(t *testing.T, refPut *ddbtypes.Put) (dict, sum []byte) {
	t.Helper()
	ref, err := emaildb.ContentRefOf(refPut.Item, "layout", "2026-01-01")
	if err != nil || ref.Dict == nil {
		t.Fatalf("the reference written does not read back: %+v, %v", ref, err)
	}
	return ref.Dict, ref.Sum
}

// refWorld is a workspace whose layout has its day's reference, written
// by the first send's kept content, as a send writes both.
type refWorld struct {
	s     emaildb.Emails
	ws    string
	ref   email.ContentRef
	refPK string
	refSK string
}

func newRefWorld(t *testing.T, first email.KeptContent) refWorld {
	t.Helper()
	store, _ := dynamotest.NewStore(t)
	w := refWorld{s: emaildb.Emails{Table: store.Table}, ws: uuid.NewString(),
		ref: email.ContentRef{Layout: "f00d", Day: time.Now().UTC().Format(time.DateOnly)}}
	w.put(t, uuid.Must(uuid.NewV7()).String(), first, true)
	w.refPK, w.refSK = dynamo.TemplatePK(w.ws), dynamo.ContentRefSK(w.ref.Layout, w.ref.Day)
	out, err := store.Table.DB.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: &store.Table.Name, Key: dynamo.Key(w.refPK, w.refSK)})
	if err != nil || out.Item == nil {
		t.Fatalf("the day's reference was not written: %v", err)
	}
	if w.ref, err = emaildb.ContentRefOf(out.Item, w.ref.Layout, w.ref.Day); err != nil || w.ref.Dict == nil {
		t.Fatalf("the day's reference does not read back: %v", err)
	}
	return w
}

// put writes an email's kept content against w's reference, as the send
// does; wantRef says whether it also writes the reference.
func (w refWorld) put(t *testing.T, id string, c email.KeptContent, wantRef bool) {
	t.Helper()
	put, refPut, err := w.s.KeptContentPut(w.ws, id, c, w.ref)
	if err != nil {
		t.Fatal(err)
	}
	if (refPut != nil) != wantRef {
		t.Fatalf("reference put %v, want one: %v", refPut != nil, wantRef)
	}
	if err := w.s.Put(t.Context(), put); err != nil {
		t.Fatal(err)
	}
	if refPut != nil {
		if err := w.s.Put(t.Context(), refPut); err != nil {
			t.Fatal(err)
		}
	}
}

// Content stored against its layout's reference of the day reads back
// byte for byte, the first email's (kept whole) and the later ones'
// (kept as their difference); the reference is written once.
func TestKeptContentAgainstReference(t *testing.T) {
	t.Parallel()
	newsletter := readNewsletter(t)
	first := email.KeptContent{HTML: personalise(newsletter, 1)}
	w := newRefWorld(t, first)
	if _, refPut, err := w.s.KeptContentPut(w.ws, uuid.NewString(), first, w.ref); err != nil || refPut != nil {
		t.Fatalf("a send that read the day's reference writes another: %v", err)
	}
	again := email.ContentRef{Layout: w.ref.Layout, Day: w.ref.Day} // a send that raced the first
	_, refPut, err := w.s.KeptContentPut(w.ws, uuid.NewString(), first, again)
	if err != nil || refPut == nil {
		t.Fatal(err)
	}
	if err := w.s.Put(t.Context(), refPut); !dynamo.IsConditionFailed(err) {
		t.Errorf("a second reference of the day was written over the first (%v)", err)
	}
	cases := map[string]email.KeptContent{
		"another recipient's": {HTML: personalise(newsletter, 2)},
		"a different layout's html": {HTML: "<p>Your code is 314159</p>", Attachments: []email.AttachmentInfo{
			{Filename: "code.txt", ContentType: "text/plain", Size: 6}}},
		"nothing":    {},
		"past 32 KB": {HTML: strings.Repeat(personalise(newsletter, 3), 4)},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			id := uuid.Must(uuid.NewV7()).String()
			w.put(t, id, want, false)
			got, err := w.s.GetContent(t.Context(), w.ws, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back %d bytes of html, kept %d", len(got.HTML), len(want.HTML))
			}
		})
	}
}

// Content whose reference is gone or is not the one it was stored
// against is not shown: never bytes inflated with the wrong dictionary,
// never an error the owner's page would show as a fault.
func TestKeptContentReferenceLost(t *testing.T) {
	t.Parallel()
	newsletter := readNewsletter(t)
	cases := map[string]func(t *testing.T, w refWorld){
		"deleted": func(t *testing.T, w refWorld) {
			if _, err := w.s.DeleteExisting(t.Context(), dynamo.Key(w.refPK, w.refSK)); err != nil {
				t.Fatal(err)
			}
		},
		"another dictionary": func(t *testing.T, w refWorld) {
			_, other, err := w.s.KeptContentPut(w.ws, uuid.NewString(), email.KeptContent{HTML: personalise(newsletter, 9)}, email.ContentRef{Layout: w.ref.Layout, Day: w.ref.Day})
			if err != nil {
				t.Fatal(err)
			}
			other.ConditionExpression, other.ExpressionAttributeNames, other.ExpressionAttributeValues = nil, nil, nil
			if err := w.s.Put(t.Context(), other); err != nil {
				t.Fatal(err)
			}
		},
		"expired": func(t *testing.T, w refWorld) {
			err := w.s.PutItem(t.Context(), map[string]any{"pk": w.refPK, "sk": w.refSK, "z": []byte{3, 0}, "h": w.ref.Sum,
				"expires_at": time.Now().Add(-time.Hour).Unix()}, dynamo.NoCondition)
			if err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, lose := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newRefWorld(t, email.KeptContent{HTML: personalise(newsletter, 1)})
			id := uuid.Must(uuid.NewV7()).String()
			w.put(t, id, email.KeptContent{HTML: personalise(newsletter, 2)}, false)
			lose(t, w)
			got, err := w.s.GetContent(t.Context(), w.ws, id)
			if !errors.Is(err, email.ErrContentNotKept) {
				t.Errorf("content read back as %d bytes of html (%v), want it not kept", len(got.HTML), err)
			}
		})
	}
}
