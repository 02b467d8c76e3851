package resolvers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/failure"
)

// ErrorPresenter maps every resolver error to the contract: failure errors
// keep their code, message and extensions; gqlgen's own document errors keep
// theirs; anything else is logged and shown only as INTERNAL, its cause kept
// (Unwrap) for the HTTP edge to tell a database outage (503) apart.
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if fe := failure.As(err); fe != nil {
			gqlErr.Message, gqlErr.Extensions = present(fe, argumentPath(ctx, gqlErr.Path))
			return gqlErr
		}
		var ge *gqlerror.Error
		if errors.As(err, &ge) && ge.Err == nil && ge.Extensions["code"] != nil {
			return gqlErr // gqlgen's own document errors keep their code
		}
		log.ErrorContext(ctx, "internal error", "err", err.Error(), "path", gqlErr.Path.String())
		gqlErr.Message = "internal error"
		gqlErr.Extensions = map[string]any{"code": string(failure.Internal)}
		return gqlErr
	}
}

// present returns the message and extensions shown for fe; path locates a
// scalar's own error among the field's arguments.
func present(fe *failure.Error, path ast.Path) (string, map[string]any) {
	msg := fe.Message
	ext := map[string]any{"code": string(fe.Code)}
	if fe.Code == failure.ValidationFailed {
		fields := fe.FieldErrors
		if len(fields) == 0 { // a scalar's own error: name the input path
			fields = []failure.FieldError{{Field: inputPath(path), Message: fe.Message}}
			msg = "invalid input: " + fields[0].Field + ": " + fe.Message
		}
		ext["fieldErrors"] = fields
	}
	for _, k := range fe.Code.ExtensionKeys() {
		if v, ok := fe.Extensions[k]; ok {
			ext[k] = v
		}
	}
	return msg, ext
}

// argumentPath strips the response path of the field whose arguments failed
// to decode: gqlgen reports a bad Decimal in registerAgent(input:) at
// [registerAgent input spendingLimit], and the contract names input.spendingLimit.
func argumentPath(ctx context.Context, path ast.Path) ast.Path {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return path
	}
	prefix := fc.Path()
	if len(prefix) > len(path) {
		return path
	}
	for i := range prefix {
		if prefix[i] != path[i] {
			return path
		}
	}
	return path[len(prefix):]
}

// inputPath renders an argument path such as input.authorizedActions[2].
func inputPath(path ast.Path) string {
	var b strings.Builder
	for _, el := range path {
		switch el := el.(type) {
		case ast.PathName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(el))
		case ast.PathIndex:
			b.WriteString("[" + strconv.Itoa(int(el)) + "]")
		}
	}
	return b.String()
}

// Recover turns a resolver panic into INTERNAL and logs it with its stack.
func Recover(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return failure.Errorf(failure.Internal, "internal error")
	}
}
