package testkit_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// ServeREST decodes both an error body and a success body of the REST edge.
func TestServeREST(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			httpapi.WriteRESTError(w, failure.Errorf(failure.NotFound, "no webhook"), nil)
		case "/broken":
			httpapi.WriteRESTError(w, errors.New("boom"), nil)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data":[{"id":"wh_1"}],"next_cursor":null}`))
		}
	})
	testkit.ServeREST(t, h, testkit.Request(http.MethodGet, "/missing", nil)).Refused(t, 404, "NOT_FOUND")
	testkit.ServeREST(t, h, testkit.Request(http.MethodGet, "/broken", nil)).Refused(t, 500, "INTERNAL")
	var list struct {
		Data       []struct{ ID string }
		NextCursor *string `json:"next_cursor"`
	}
	testkit.ServeREST(t, h, testkit.Request(http.MethodGet, "/list", nil)).Into(t, 200, &list)
	if len(list.Data) != 1 || list.Data[0].ID != "wh_1" || list.NextCursor != nil {
		t.Fatalf("decoded %+v", list)
	}
}
