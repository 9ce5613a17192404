package openapitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DuplicateKeys reports the first object of data, at any depth, that names
// a key twice. encoding/json and most parsers keep one of the copies
// silently; Redocly and openapi-typescript refuse the whole document.
func DuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := walker{dec: dec, data: data}
	if err := w.value(""); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("line %d: data after the document", w.line())
	}
	return nil
}

// walker reads one JSON value after another from dec.
type walker struct {
	dec  *json.Decoder
	data []byte
}

// value reads the value at pointer (a JSON pointer), and every value in it.
func (w walker) value(pointer string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return fmt.Errorf("line %d: %w", w.line(), err)
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for w.dec.More() {
			tok, err := w.dec.Token()
			if err != nil {
				return fmt.Errorf("line %d: %w", w.line(), err)
			}
			key, _ := tok.(string) // the decoder gives an object's keys as strings
			if seen[key] {
				return fmt.Errorf("line %d: key %q twice in the object at %q", w.line(), key, pointer)
			}
			seen[key] = true
			if err := w.value(pointer + "/" + escape(key)); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; w.dec.More(); i++ {
			if err := w.value(pointer + "/" + strconv.Itoa(i)); err != nil {
				return err
			}
		}
	default:
		return nil // a string, number, boolean or null
	}
	_, err = w.dec.Token() // the closing delimiter
	return err
}

// line is the line of the decoder's position, counted from 1.
func (w walker) line() int {
	return 1 + bytes.Count(w.data[:w.dec.InputOffset()], []byte("\n"))
}

// escape writes key as a JSON pointer token (RFC 6901).
func escape(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
