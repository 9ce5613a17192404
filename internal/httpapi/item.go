package httpapi

import "strings"

// ItemError is the error of one item of a batch (POST /send/batch, POST
// /suppressions with emails), in the envelope's shape without request id.
type ItemError struct {
	Code    Code    `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

// NewItemError scopes an item's problem to the item whose params start
// with prefix (e.g. "emails[3]."): validation errors come prefixed
// already; errors of the item's own work get the prefix here. A malformed
// item, and an item that is a bare value, name the item itself.
func NewItemError(p Problem, prefix string) *ItemError {
	out := &ItemError{Code: p.Code, Message: p.Message}
	param := p.Param
	item := strings.TrimSuffix(prefix, ".")
	switch {
	case param == "" || param == "Idempotency-Key":
	case param == prefix+"body" || param == item:
		param = item
	case !strings.HasPrefix(param, prefix):
		param = prefix + param
	}
	if param != "" {
		out.Param = &param
	}
	return out
}
