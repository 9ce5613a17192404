package httpapi

// ItemError is the error of one item of a batch (POST /send/batch, POST
// /suppressions with emails), in the envelope's shape without request id.
type ItemError struct {
	Code    Code    `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

// NewItemError scopes an item's problem, whose param names a field of the
// item alone (as Validate, DecodeValue and the item's own work name it),
// to the item, e.g. "emails[3]": a field becomes "emails[3].to", the item
// as a whole ("body", as DecodeValue names a value that is not an object)
// becomes "emails[3]", and a problem of no field, or of a header
// (Idempotency-Key), has no param.
func NewItemError(p Problem, item string) *ItemError {
	out := &ItemError{Code: p.Code, Message: p.Message}
	param := p.Param
	switch {
	case param == "" || isHeader(param):
		return out
	case param == "body":
		param = item
	default:
		param = item + "." + param
	}
	out.Param = &param
	return out
}

// itemHeaders are the headers an item's problem can name: the request's,
// shared by every item.
var itemHeaders = map[string]bool{"Idempotency-Key": true, "Content-Type": true}

// isHeader reports whether param names a header rather than a field of
// the item (an unknown field may be spelled like a header: "Foo").
func isHeader(param string) bool {
	return itemHeaders[param]
}
