package failure

import "net/http"

// edge is how one code leaves the service on every transport.
type edge struct {
	status     int      // HTTP status when a request as a whole is refused
	extensions []string // keys of Error.Extensions shown to the caller
}

// table is the one mapping from contract codes to transports: the GraphQL
// error presenter reads the extension keys, the HTTP edge and the REST edge
// the status (a GraphQL answer with field errors stays 200, as GraphQL over
// HTTP requires).
var table = map[Code]edge{
	Unauthenticated:  {status: http.StatusUnauthorized},
	Forbidden:        {status: http.StatusForbidden},
	NotFound:         {status: http.StatusNotFound},
	ValidationFailed: {status: http.StatusUnprocessableEntity, extensions: []string{"fieldErrors"}},
	Conflict:         {status: http.StatusConflict},
	PolicyDenied:     {status: http.StatusUnprocessableEntity, extensions: []string{"reasonCode", "reason"}},
	RateLimited:      {status: http.StatusTooManyRequests, extensions: []string{"retryAfter"}},
	Internal:         {status: http.StatusInternalServerError},
}

// HTTPStatus is the HTTP status for c (500 for a code outside the contract).
func (c Code) HTTPStatus() int {
	if e, ok := table[c]; ok {
		return e.status
	}
	return http.StatusInternalServerError
}

// ExtensionKeys lists the code-specific keys of Error.Extensions a caller
// sees for c, beside "code" (fieldErrors is filled from Error.FieldErrors).
func (c Code) ExtensionKeys() []string { return table[c].extensions }

// Codes lists every contract code, for tests that walk the table.
func Codes() []Code {
	return []Code{Unauthenticated, Forbidden, NotFound, ValidationFailed, Conflict, PolicyDenied, RateLimited, Internal}
}
