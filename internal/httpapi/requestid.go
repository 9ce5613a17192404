package httpapi

import (
	"context"
	"net/http"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/google/uuid"
)

type requestIDKey struct{}

// RequestID is the id of the request being served, or "" outside one.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// withRequestID gives every request an id, the API Gateway one when the
// request came through API Gateway, and echoes it in X-Request-Id.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ""
		if gw, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
			id = gw.RequestID
		}
		if id == "" {
			id = uuid.NewString()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}
