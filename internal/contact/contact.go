// Package contact is a workspace's audience: the people it may send
// campaigns and automations to, with their subscription, tags and
// properties. Its routes are served by contacthttp.
package contact

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"strings"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// Contact is one person of a workspace's audience. Email is stored
// trimmed and lowercased and is unique within the workspace.
type Contact struct {
	ID             string              `json:"id"`
	WorkspaceID    string              `json:"-"`
	Email          string              `json:"email"`
	FirstName      *string             `json:"first_name"`
	LastName       *string             `json:"last_name"`
	Subscribed     bool                `json:"subscribed"`
	UnsubscribedAt *time.Time          `json:"unsubscribed_at"`
	Tags           []string            `json:"tags"`
	Properties     map[string]Property `json:"properties"`
	CreatedAt      time.Time           `json:"created_at"`
	UpdatedAt      time.Time           `json:"updated_at"`
}

// ErrNotFound is returned for a contact that is absent or foreign, and
// ErrExists for a new email that another contact of the workspace has.
var (
	ErrNotFound error = fail.NotFound("contact")
	ErrExists         = errors.New("a contact with this email exists")
)

// NormalizeEmail is the stored form of an address: the do-not-send list's
// key form (trimmed and lowercased), so that uniqueness is
// case-insensitive and a contact's email is the key of its suppression.
func NormalizeEmail(s string) string { return suppression.Key(s) }

// PropertyKind is the JSON type of a property value.
type PropertyKind int

const (
	KindString PropertyKind = iota + 1
	KindNumber
	KindBool
)

// Property is one property value: a string, a number or a boolean, never
// an object, an array or null.
type Property struct {
	Kind   PropertyKind
	String string
	Number float64
	Bool   bool
	// overPrecise marks a number written with more significant digits
	// than the store keeps (Check refuses it); false for any other value,
	// so values compare as they are built.
	overPrecise bool
}

// StringProperty, NumberProperty and BoolProperty build a value.
func StringProperty(s string) Property  { return Property{Kind: KindString, String: s} }
func NumberProperty(n float64) Property { return Property{Kind: KindNumber, Number: n} }
func BoolProperty(b bool) Property      { return Property{Kind: KindBool, Bool: b} }

// ErrPropertyType is a property value that is not a string, number or
// boolean.
var ErrPropertyType = errors.New("a property value is a string, a number or a boolean")

func (p Property) MarshalJSON() ([]byte, error) {
	switch p.Kind {
	case KindString:
		return json.Marshal(p.String)
	case KindNumber:
		return json.Marshal(p.Number)
	case KindBool:
		return json.Marshal(p.Bool)
	}
	return nil, fmt.Errorf("property of kind %d: %w", p.Kind, ErrPropertyType)
}

func (p *Property) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case string:
		*p = StringProperty(v)
	case float64:
		*p = NumberProperty(v)
		p.overPrecise = significantDigits(string(b)) > MaxDigits
	case bool:
		*p = BoolProperty(v)
	default:
		return ErrPropertyType
	}
	return nil
}

// significantDigits counts the significant digits of a JSON number
// literal: its mantissa's digits without leading or trailing zeros.
func significantDigits(literal string) int {
	mantissa, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(literal)), "e")
	digits := strings.Trim(strings.Replace(strings.TrimPrefix(mantissa, "-"), ".", "", 1), "0")
	return len(digits)
}

// Sample is the contact a preview or a check renders merge tags for when
// no real recipient is at hand.
var Sample = Contact{ID: "00000000-0000-7000-8000-000000000000", Email: "alex.sample@example.com", FirstName: samplePtr("Alex"), LastName: samplePtr("Sample")}

func samplePtr(s string) *string { return &s }
