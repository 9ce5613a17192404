package sesame

import (
	"iter"
	"net/http"
)

// page is every list answer of the API.
type page[T any] struct {
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// pages yields every item of a list, fetching the next page (with the
// previous page's next_cursor) as the caller reaches it. An error ends the
// iteration after it is yielded.
func pages[T any](fetch func(cursor *string) (*http.Response, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var cursor *string
		for {
			p, err := decode[page[T]](fetch(cursor))
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Data {
				if !yield(it, nil) {
					return
				}
			}
			if !p.HasMore || p.NextCursor == nil {
				return
			}
			cursor = p.NextCursor
		}
	}
}
