package contact_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
)

// An import refuses, line by line, a name with a line break in a quoted
// cell (it would go into subjects), and takes the lines around it.
func TestReadCSVRefusesANameWithALineBreak(t *testing.T) {
	file := "email,first_name,last_name\r\n" +
		"ann@example.org,Ann,Lee\r\n" +
		"bo@example.org,\"Bo\r\nBcc: all@example.org\",\r\n" +
		"cy@example.org,Cy,\"Li\x00\"\r\n" +
		"dee@example.org,Dee,\r\n"
	var taken []string
	refused := map[int]string{}
	err := contact.ReadCSV(strings.NewReader(file), func(r contact.Row) error {
		if r.Err != nil {
			e, _ := fail.As(r.Err)
			refused[r.Line] = e.Param
			return nil
		}
		taken = append(taken, *r.Patch.Email)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(taken, " ") != "ann@example.org dee@example.org" {
		t.Errorf("took %v", taken)
	}
	if len(refused) != 2 || refused[3] != "first_name" || refused[5] != "last_name" {
		t.Errorf("refused %v, want line 3 on first_name and line 5 on last_name", refused)
	}
}
