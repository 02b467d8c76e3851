package httpapi

import (
	"net/http"
	"strconv"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/webhook"
)

// restEdge serves the REST operations on webhook endpoints over the same
// service the GraphQL resolvers call.
type restEdge struct{ d Deps }

// webhookRoutes routes /webhooks; the caller authenticates first.
func webhookRoutes(d Deps) http.Handler {
	e := &restEdge{d: d}
	mux := http.NewServeMux()
	for pattern, h := range e.routes() {
		route(mux, pattern, h)
	}
	return mux
}

// routes are the webhook edge's handlers by route pattern, each the
// pattern's entry in auth.Operations.
func (e *restEdge) routes() map[string]restHandler {
	return map[string]restHandler{
		"POST /webhooks":                    e.register,
		"GET /webhooks":                     e.list,
		"GET /webhooks/{id}":                e.get,
		"PATCH /webhooks/{id}":              e.update,
		"DELETE /webhooks/{id}":             e.delete,
		"POST /webhooks/{id}/test":          e.test,
		"GET /webhooks/{id}/deliveries":     e.deliveries,
		"POST /webhooks/{id}/secret/rotate": e.rotate,
		"POST /webhooks/{id}/redeliver":     e.redeliver,
	}
}

// webhookJSON is the REST wire form of an endpoint.
type webhookJSON struct {
	ID                  string   `json:"id"`
	OrgID               string   `json:"org_id"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"`
	Active              bool     `json:"active"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	CreatedAt           string   `json:"created_at"`
	Secret              *string  `json:"secret,omitempty"`
}

func toWebhookJSON(ep *webhook.Endpoint) webhookJSON {
	return webhookJSON{ID: ep.ID, OrgID: ep.OrgID, URL: ep.URL, Events: ep.Events, Active: ep.Active,
		ConsecutiveFailures: ep.ConsecutiveFailures, CreatedAt: event.FormatTime(ep.CreatedAt), Secret: ep.Secret}
}

// deliveryJSON is the REST wire form of one attempt.
type deliveryJSON struct {
	ID           string  `json:"id"`
	EventID      string  `json:"event_id"`
	EventType    string  `json:"event_type"`
	Attempt      int     `json:"attempt"`
	Success      bool    `json:"success"`
	StatusCode   *int    `json:"status_code"`
	LatencyMs    int     `json:"latency_ms"`
	Error        *string `json:"error"`
	ResponseBody *string `json:"response_body"`
	CreatedAt    string  `json:"created_at"`
}

func (e *restEdge) register(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	var in struct {
		URL    string   `json:"url"`
		Events []string `json:"events"`
	}
	if !decode(w, r, &in) {
		return
	}
	ep, err := e.d.Services.Webhooks.Register(r.Context(), p, webhook.RegisterInput{URL: in.URL, Events: in.Events})
	if err != nil {
		e.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toWebhookJSON(ep))
}

func (e *restEdge) list(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	eps, err := e.d.Services.Webhooks.List(r.Context(), p)
	if err != nil {
		e.fail(w, r, err)
		return
	}
	out := make([]webhookJSON, len(eps))
	for i := range eps {
		out[i] = toWebhookJSON(&eps[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (e *restEdge) get(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	ep, err := e.d.Services.Webhooks.Get(r.Context(), p, r.PathValue("id"))
	if err != nil {
		e.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(ep))
}

func (e *restEdge) update(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	var in struct {
		URL    *string  `json:"url"`
		Events []string `json:"events"`
		Active *bool    `json:"active"`
	}
	if !decode(w, r, &in) {
		return
	}
	ep, err := e.d.Services.Webhooks.Update(r.Context(), p, r.PathValue("id"), webhook.UpdateInput{URL: in.URL, Events: in.Events, Active: in.Active})
	if err != nil {
		e.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(ep))
}

func (e *restEdge) delete(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	if err := e.d.Services.Webhooks.Delete(r.Context(), p, r.PathValue("id")); err != nil {
		e.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (e *restEdge) test(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	res, err := e.d.Services.Webhooks.Test(r.Context(), p, r.PathValue("id"))
	if err != nil {
		e.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status_code": res.StatusCode, "success": res.Success})
}

func (e *restEdge) deliveries(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	limit := paging.Default
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeRESTError(w, http.StatusUnprocessableEntity, failure.Invalid("limit", "must be a whole number between 1 and %d", paging.Max))
			return
		}
		limit = n
	}
	page, err := e.d.Services.Webhooks.Deliveries(r.Context(), p, r.PathValue("id"), paging.Window{Limit: limit, After: r.URL.Query().Get("after")})
	if err != nil {
		e.fail(w, r, err)
		return
	}
	out := make([]deliveryJSON, len(page.Deliveries))
	for i, d := range page.Deliveries {
		out[i] = deliveryJSON{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Attempt: d.Attempt, Success: d.Success,
			StatusCode: d.StatusCode, LatencyMs: d.LatencyMs, Error: d.Error, ResponseBody: d.ResponseBody, CreatedAt: event.FormatTime(d.CreatedAt)}
	}
	var next *string
	if page.NextCursor != "" {
		next = &page.NextCursor
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "next_cursor": next})
}

func (e *restEdge) rotate(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	ep, err := e.d.Services.Webhooks.RotateSecret(r.Context(), p, r.PathValue("id"))
	if err != nil {
		e.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(ep))
}

func (e *restEdge) redeliver(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	var in struct {
		EventID string `json:"event_id"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.EventID == "" {
		writeRESTError(w, http.StatusUnprocessableEntity, failure.Invalid("event_id", "is required"))
		return
	}
	if err := e.d.Services.Webhooks.Redeliver(r.Context(), p, r.PathValue("id"), in.EventID); err != nil {
		e.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"queued": true})
}
