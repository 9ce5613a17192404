package routes

import "context"

type functionKey struct{}

// WithFunction returns ctx carrying the name of the function that serves
// the request, message or tick: where a process serves many functions (the
// dev server, tests), the AWS calls made with ctx are that function's, as
// they would be under its own role when deployed.
func WithFunction(ctx context.Context, function string) context.Context {
	return context.WithValue(ctx, functionKey{}, function)
}

// FunctionOf is the function ctx carries (WithFunction), "" when none.
func FunctionOf(ctx context.Context) string {
	f, _ := ctx.Value(functionKey{}).(string)
	return f
}
