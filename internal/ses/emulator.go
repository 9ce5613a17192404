package ses

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// StoredEmail is one message captured by the local SES emulator
// (npm aws-ses-v2-local), as its GET /store lists it.
//
// For Raw sends the emulator fills these from the parsed MIME message, not
// from the request: From and Destination hold header text (e.g.
// `"Name" <a@b>`), Headers stays empty, and the request's EmailTags,
// ConfigurationSetName and Message-ID are not kept. MessageID (the id Send
// returned) is the only link back to the sent email.
type StoredEmail struct {
	MessageID   string             `json:"messageId"`
	From        string             `json:"from"`
	ReplyTo     []string           `json:"replyTo"`
	Destination StoredDestination  `json:"destination"`
	Subject     string             `json:"subject"`
	Body        StoredBody         `json:"body"`
	Attachments []StoredAttachment `json:"attachments"`
	Headers     []StoredHeader     `json:"headers"` // Simple and Template sends only
	At          int64              `json:"at"`      // unix seconds
}

// Time is when the emulator captured the message.
func (e StoredEmail) Time() time.Time { return time.Unix(e.At, 0) }

// StoredDestination lists recipients as the emulator recorded them.
type StoredDestination struct {
	To  []string `json:"to"`
	Cc  []string `json:"cc"`
	Bcc []string `json:"bcc"`
}

// StoredBody is the message's HTML and text; either may be empty.
type StoredBody struct {
	HTML string `json:"html"`
	Text string `json:"text"`
}

// StoredAttachment is an attachment with its decoded bytes.
type StoredAttachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Content     []byte `json:"content"` // base64 in the JSON
	Size        int    `json:"size"`
}

// StoredHeader is one extra header of a Simple or Template send.
type StoredHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ReadEmulatorStore returns every message the emulator at baseURL (e.g.
// http://127.0.0.1:18002) has captured, oldest first. It is for tests and
// the dev stack, which has no SES to emit events.
func ReadEmulatorStore(ctx context.Context, baseURL string) ([]StoredEmail, error) {
	return ReadEmulatorStoreSince(ctx, baseURL, time.Time{})
}

// ReadEmulatorStoreSince is ReadEmulatorStore of the messages captured
// at or after since (whole seconds), all when since is zero: the store
// is shared by every test of a run, and its JSON holds every attachment.
func ReadEmulatorStoreSince(ctx context.Context, baseURL string, since time.Time) ([]StoredEmail, error) {
	u := strings.TrimSuffix(baseURL, "/") + "/store"
	if !since.IsZero() {
		u += "?since=" + strconv.FormatInt(since.Unix(), 10)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("ses emulator: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ses emulator: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("ses emulator: GET /store: %s: %s", resp.Status, body)
	}
	var store struct {
		Emails []StoredEmail `json:"emails"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&store); err != nil {
		return nil, fmt.Errorf("ses emulator: decode /store: %w", err)
	}
	return store.Emails, nil
}
