package email

import (
	"context"
	"errors"
	"time"
)

// Content is what an email carried, as its owner is shown it: the
// subject, the html part, the text part and each attachment's name and
// size. Nothing keeps the raw message; Content is rebuilt from what is
// stored (Views.Content).
type Content struct {
	Subject     string
	HTML        string
	Text        string
	Attachments []AttachmentInfo
}

// AttachmentInfo is an attachment as it went, without its bytes.
type AttachmentInfo struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	// Size is the decoded size in bytes.
	Size int `json:"size"`
}

// KeptContent is what the send path keeps of a transactional email (sent,
// held, captured): the html as composed and the attachments' names and
// sizes. Campaign and automation emails keep none: their content is
// rendered again from the campaign or the automation's version.
type KeptContent struct {
	HTML        string           `json:"html"`
	Attachments []AttachmentInfo `json:"attachments,omitempty"`
}

// ContentKept is how long a transactional email's content is kept.
const ContentKept = 30 * 24 * time.Hour

// ContentRef is the reference content of a layout for one UTC day: the
// kept content of the emails of that layout sent that day is stored as
// its difference from it (emaildb). Layout (review.Fingerprint) and Day
// (yyyy-mm-dd) name it. Stored says the day has a reference (a send that
// finds none writes one from its own content); Dict and Sum are its bytes
// and their hash, Dict nil when it did not check out (content is then kept
// whole, and no other reference written). The zero ContentRef keeps
// content whole.
type ContentRef struct {
	Layout, Day string
	Stored      bool
	Dict, Sum   []byte
}

// ErrContentNotKept is the content of an email nothing keeps any more (or
// never kept: an email sent before content was kept).
var ErrContentNotKept = errors.New("the email's content is not kept")

// ContentStore keeps and reads the content of transactional emails.
type ContentStore interface {
	PutContent(ctx context.Context, workspaceID, emailID string, c KeptContent) error
	// GetContent is ErrContentNotKept when nothing is kept.
	GetContent(ctx context.Context, workspaceID, emailID string) (KeptContent, error)
}
