package eventdb

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// A feed item keeps its envelope deflated (attribute bodyz): about half
// the bytes of its JSON, so a month of the feed stores less and a large
// envelope stays under the 1 KB of one write unit. Items written before
// keep their JSON in body.

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestCompression) // the level is valid
	return w
}}

// PackBody deflates an envelope for its feed item.
func PackBody(body []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Envelope is the item's envelope JSON, as it was recorded.
func (it FeedItem) Envelope() ([]byte, error) {
	if len(it.Packed) == 0 {
		return it.Body, nil
	}
	b, err := io.ReadAll(flate.NewReader(bytes.NewReader(it.Packed)))
	if err != nil {
		return nil, fmt.Errorf("feed item %s: %w", it.SK, err)
	}
	return b, nil
}
