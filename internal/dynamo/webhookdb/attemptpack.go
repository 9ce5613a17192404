package webhookdb

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// The attempts of one batch item are packed in one binary attribute: a
// version byte, the newest attempt's time (Unix ns), the count, then per
// attempt its event type, email id, event id, number, status code,
// latency, time (ns before the newest) and error. Attribute names per
// attempt (a list of maps) would cost more bytes than the values.
const packVersion = 1

// maxErrorBytes bounds an attempt's error text in the item: the words
// fail.MessageOf gives are short, and a batch item stays far under
// DynamoDB's 400 KB whatever a dependency's error says.
const maxErrorBytes = 200

// Error classes: the texts the dispatcher derives from a status code are
// kept as the code alone.
const (
	errNone     = 0
	errHTTP     = 1 // "HTTP <status>"
	errRedirect = 2 // "redirect not followed (HTTP <status>)"
	errText     = 3
)

// Id tags: a canonical UUID (an email's id) and an event id of the
// status pipeline ("evt_" and 32 lowercase hex digits) are kept as their
// 16 bytes.
const (
	idUUID  = 0
	idText  = 1
	idEvent = 2
)

const eventPrefix = "evt_"

// compactID is the 16 bytes of id and its tag, or false for an id kept
// as text.
func compactID(id string) (byte, []byte, bool) {
	if u, err := uuid.Parse(id); err == nil && u.String() == id {
		return idUUID, u[:], true
	}
	if hexID, ok := strings.CutPrefix(id, eventPrefix); ok && len(hexID) == 32 {
		if b, err := hex.DecodeString(hexID); err == nil && hex.EncodeToString(b) == hexID {
			return idEvent, b, true
		}
	}
	return 0, nil, false
}

var errPacked = errors.New("malformed webhook attempts")

// packAttempts encodes attempts (of one endpoint; its id and the
// workspace's are the item's key) for a batch item.
func packAttempts(attempts []webhook.Attempt) []byte {
	newest := newestAt(attempts)
	b := []byte{packVersion}
	if len(attempts) == 0 {
		newest = time.Unix(0, 0)
	}
	b = binary.AppendVarint(b, newest.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(attempts)))
	for _, a := range attempts {
		b = appendType(b, a.EventType)
		b = appendID(b, a.EmailID)
		b = appendID(b, a.EventID)
		b = binary.AppendUvarint(b, uint64(max(a.Number, 0)))
		b = binary.AppendUvarint(b, uint64(max(a.StatusCode, 0)))
		b = binary.AppendUvarint(b, uint64(max(a.LatencyMS, 0)))
		b = binary.AppendUvarint(b, uint64(newest.Sub(a.At)))
		b = appendError(b, a)
	}
	return b
}

// newestAt is the latest attempt time: a batch item's sort key, so every
// attempt it holds is at or before its key.
func newestAt(attempts []webhook.Attempt) time.Time {
	var t time.Time
	for _, a := range attempts {
		if a.At.After(t) {
			t = a.At
		}
	}
	return t.UTC()
}

func appendType(b []byte, t event.Type) []byte {
	if i := slices.Index(event.Types, t); i >= 0 {
		return binary.AppendUvarint(b, uint64(i+1))
	}
	b = binary.AppendUvarint(b, 0)
	return appendString(b, string(t))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// idBytes is an id as the item keeps it, in the packed attempts and in
// the email id set an email's reads filter on.
func idBytes(id string) []byte {
	if tag, raw, ok := compactID(id); ok {
		return append([]byte{tag}, raw...)
	}
	return append([]byte{idText}, id...)
}

func appendID(b []byte, id string) []byte {
	if tag, raw, ok := compactID(id); ok {
		return append(append(b, tag), raw...)
	}
	return appendString(append(b, idText), id)
}

func appendError(b []byte, a webhook.Attempt) []byte {
	switch a.Error {
	case "":
		return append(b, errNone)
	case fmt.Sprintf("HTTP %d", a.StatusCode):
		return append(b, errHTTP)
	case fmt.Sprintf("redirect not followed (HTTP %d)", a.StatusCode):
		return append(b, errRedirect)
	}
	return appendString(append(b, errText), schema.CutText(a.Error, maxErrorBytes))
}

// unpackAttempts decodes packed attempts of endpointID in workspaceID.
func unpackAttempts(b []byte, workspaceID, endpointID string) ([]webhook.Attempt, error) {
	r := &packReader{b: b}
	if r.byte() != packVersion {
		return nil, errPacked
	}
	newestNS := r.varint()
	newest := time.Unix(0, newestNS).UTC()
	n := r.uvarint()
	// Each attempt takes at least 9 bytes: a bound before allocating.
	if r.err != nil || newestNS < 0 || n > uint64(len(r.b))/9 {
		return nil, errPacked
	}
	out := make([]webhook.Attempt, 0, n)
	for range n {
		a := webhook.Attempt{WorkspaceID: workspaceID, EndpointID: endpointID}
		a.EventType = r.eventType()
		a.EmailID = r.id()
		a.EventID = r.id()
		a.Number = r.int()
		a.StatusCode = r.int()
		a.LatencyMS = int64(r.int())
		before := r.int()
		if int64(before) > newestNS { // before 1970: never written
			r.fail()
		}
		a.At = newest.Add(-time.Duration(before))
		switch r.byte() {
		case errNone:
		case errHTTP:
			a.Error = fmt.Sprintf("HTTP %d", a.StatusCode)
		case errRedirect:
			a.Error = fmt.Sprintf("redirect not followed (HTTP %d)", a.StatusCode)
		case errText:
			a.Error = r.string()
			if a.Error == "" || len(a.Error) > maxErrorBytes {
				r.err = errPacked
			}
		default:
			r.err = errPacked
		}
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, a)
	}
	if len(r.b) > 0 {
		return nil, errPacked
	}
	return out, nil
}

// packReader reads a packed item, remembering the first error.
type packReader struct {
	b   []byte
	err error
}

func (r *packReader) fail() { r.err, r.b = errPacked, nil }

func (r *packReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *packReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *packReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a count that must fit an int63 (a number, a code, a span).
func (r *packReader) int() int {
	v := r.uvarint()
	if v > 1<<62 {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *packReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *packReader) string() string { return string(r.bytes(r.uvarint())) }

func (r *packReader) eventType() event.Type {
	i := r.uvarint()
	switch {
	case i == 0:
		t := event.Type(r.string())
		if t.Valid() { // a known type is always kept as its index
			r.fail()
		}
		return t
	case i <= uint64(len(event.Types)):
		return event.Types[i-1]
	}
	r.fail()
	return ""
}

func (r *packReader) id() string {
	switch r.byte() {
	case idUUID:
		u, err := uuid.FromBytes(r.bytes(16))
		if err != nil {
			r.fail()
		}
		return u.String()
	case idEvent:
		return eventPrefix + hex.EncodeToString(r.bytes(16))
	case idText:
		s := r.string()
		if _, _, ok := compactID(s); ok { // kept as its bytes
			r.fail()
		}
		return s
	}
	r.fail()
	return ""
}
