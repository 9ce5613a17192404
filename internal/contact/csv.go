package contact

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Row is one data row of an import file: its line number, the change it
// asks for, or why it was refused.
type Row struct {
	Line  int
	Patch Patch
	Err   error
}

// The columns an import file names by themselves; any other is a property.
const (
	colEmail     = "email"
	colFirstName = "first_name"
	colLastName  = "last_name"
	colTags      = "tags"
)

// ReadCSV reads an import file: a header row naming email (required),
// first_name, last_name, tags (separated by spaces, commas or semicolons)
// and any other column as a property. An empty cell leaves its field as it
// is. A property cell is a number when it reads as a JSON number without
// leading zeros, true or false as a boolean, else a string (so 02134
// stays a zip code). fn gets every row, checked; a bad header stops it.
func ReadCSV(r io.Reader, fn func(Row) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return &HeaderError{Err: fmt.Errorf("read the header row: %w", err)}
	}
	cols, err := readHeader(header)
	if err != nil {
		return &HeaderError{Err: err}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := cr.FieldPos(0)
		var row Row
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return err
			}
			row = Row{Line: pe.Line, Err: pe.Err}
		} else {
			row = readRow(cols, rec, line)
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// HeaderError stops an import whose file has no header row it can read:
// the owner's file is at fault, not the store.
type HeaderError struct{ Err error }

func (e *HeaderError) Error() string { return e.Err.Error() }

func (e *HeaderError) Unwrap() error { return e.Err }

func readHeader(header []string) ([]string, error) {
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if seen[h] {
			return nil, fmt.Errorf("header: column %q appears twice", h)
		}
		seen[h] = true
		switch h {
		case colEmail, colFirstName, colLastName, colTags:
		default:
			if !isKey(h, MaxPropertyKey, "") {
				return nil, fmt.Errorf("header: column %q is not a property key (1 to %d characters of a-z, 0-9 and _)", h, MaxPropertyKey)
			}
		}
		cols[i] = h
	}
	if !seen[colEmail] {
		return nil, errors.New("header: no email column")
	}
	return cols, nil
}

func readRow(cols, rec []string, line int) Row {
	if len(rec) != len(cols) {
		return Row{Line: line, Err: fmt.Errorf("%d fields, the header has %d", len(rec), len(cols))}
	}
	var p Patch
	for i, col := range cols {
		v := strings.TrimSpace(rec[i])
		if v == "" {
			continue
		}
		switch col {
		case colEmail:
			p.Email = &v
		case colFirstName:
			p.FirstName = Nullable[string]{Set: true, Value: &v}
		case colLastName:
			p.LastName = Nullable[string]{Set: true, Value: &v}
		case colTags:
			tags := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == ' ' })
			p.Tags = &tags
		default:
			if p.Properties == nil {
				p.Properties = map[string]*Property{}
			}
			prop := cellProperty(v)
			p.Properties[col] = &prop
		}
	}
	if p.Email == nil {
		return Row{Line: line, Err: errors.New("email is empty")}
	}
	checked, err := p.Check()
	return Row{Line: line, Patch: checked, Err: err}
}

func cellProperty(v string) Property {
	switch v {
	case "true":
		return BoolProperty(true)
	case "false":
		return BoolProperty(false)
	}
	var n Property // JSON's number grammar: no leading zeros, no +, no hex
	if json.Unmarshal([]byte(v), &n) == nil && n.Kind == KindNumber {
		return n
	}
	return StringProperty(v)
}
