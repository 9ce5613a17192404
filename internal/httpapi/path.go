package httpapi

import (
	"net/http"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// PathUUID is the path's {id} in its stored, lowercase form (UUIDs are
// case-insensitive); an id that is not a UUID names no record, so it is
// what's not found (fail.NotFound(what)).
func PathUUID(r *http.Request, what string) (string, error) {
	id, err := ident.Parse(r.PathValue("id"))
	if err != nil {
		return "", fail.NotFound(what)
	}
	return id.String(), nil
}
