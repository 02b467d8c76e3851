package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Webhook is an endpoint that receives the organization's events.
type Webhook struct {
	ID                  string    `json:"id"` // wh_<id>
	OrgID               string    `json:"org_id"`
	URL                 string    `json:"url"`
	Events              []string  `json:"events"` // event types, or ["*"]
	Active              bool      `json:"active"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	CreatedAt           time.Time `json:"created_at"`
	// Secret (whsec_<base64>) is set only in the answers of Register and
	// RotateSecret: keep it to verify deliveries with VerifyWebhook.
	Secret string `json:"secret,omitempty"`
}

// WebhookDelivery is one attempt to deliver one event to one endpoint.
type WebhookDelivery struct {
	ID           string    `json:"id"` // dlv_<id>
	EventID      string    `json:"event_id"`
	EventType    string    `json:"event_type"`
	Attempt      int       `json:"attempt"` // 1 for the first attempt
	Success      bool      `json:"success"`
	StatusCode   *int      `json:"status_code"` // nil when no HTTP answer came
	LatencyMs    int       `json:"latency_ms"`
	Error        string    `json:"error"`
	ResponseBody string    `json:"response_body"` // the first 4 KiB of the answer
	CreatedAt    time.Time `json:"created_at"`
}

// DeliveryPage is one page of an endpoint's deliveries, newest first.
type DeliveryPage struct {
	Deliveries []WebhookDelivery
	// NextCursor is passed as After for the next page; "" on the last page.
	NextCursor string
}

// WebhookTestResult is the outcome of a test delivery.
type WebhookTestResult struct {
	StatusCode int  `json:"status_code"`
	Success    bool `json:"success"`
}

// RegisterWebhookInput is what Webhooks.Register needs.
type RegisterWebhookInput struct {
	URL    string   `json:"url"`    // https, publicly reachable
	Events []string `json:"events"` // known event types, or ["*"]
}

// UpdateWebhookInput changes an endpoint: nil fields stay unchanged.
type UpdateWebhookInput struct {
	URL    *string  `json:"url,omitempty"`
	Events []string `json:"events,omitempty"`
	Active *bool    `json:"active,omitempty"`
}

// DeliveriesParams page Webhooks.Deliveries.
type DeliveriesParams struct {
	Limit int    // 0 is the server's default
	After string // the NextCursor of the previous page
}

// WebhooksService holds the webhook endpoint operations, sent to the REST edge.
type WebhooksService struct{ c *Client }

// restError is the REST edge's error body.
type restError struct {
	Error struct {
		Code        string       `json:"code"`
		Message     string       `json:"message"`
		FieldErrors []FieldError `json:"field_errors"`
		RetryAfter  float64      `json:"retry_after"`
	} `json:"error"`
}

// decodeREST returns nil for a 2xx answer and the typed error of any other.
func decodeREST(a *answer) error {
	if a.status >= 200 && a.status < 300 {
		return nil
	}
	var e restError
	_ = json.Unmarshal(a.body, &e)
	if e.Error.Message == "" {
		e.Error.Message = http.StatusText(a.status)
	}
	if e.Error.Code == "" && (a.status == http.StatusUnprocessableEntity || a.status == http.StatusBadRequest) {
		e.Error.Code = CodeValidationFailed
	}
	return typedError(a.status, a.header, errorDetail{
		code:        e.Error.Code,
		message:     e.Error.Message,
		fieldErrors: e.Error.FieldErrors,
		retryAfter:  time.Duration(e.Error.RetryAfter * float64(time.Second)),
	})
}

// rest sends one REST call and decodes a successful answer's body into out
// (nil: the body is ignored).
func (c *Client) rest(ctx context.Context, op string, policy retryPolicy, method, path string, in, out any) error {
	cl := call{method: method, path: path, policy: policy, op: op, header: http.Header{"Accept": {"application/json"}}}
	if in != nil {
		body, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("agenttrust %s: encode request: %w", op, err)
		}
		cl.body = body
	}
	a, err := c.do(ctx, cl, decodeREST)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(a.body, out); err != nil {
		return fmt.Errorf("agenttrust %s: decode answer: %w", op, err)
	}
	return nil
}

func webhookPath(id string, rest ...string) string {
	p := "/webhooks/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// Register verifies the URL with a signed webhook.verification request and
// stores the endpoint; the answer holds its Secret. An unreachable or
// refusing URL is a *ValidationError on url. It is retried only when the
// request provably never reached the server.
func (s *WebhooksService) Register(ctx context.Context, in RegisterWebhookInput) (*Webhook, error) {
	var w Webhook
	err := s.c.rest(ctx, "webhooks.register", once, http.MethodPost, "/webhooks", in, &w)
	return ptrOrNil(&w, err)
}

// List returns the organization's webhook endpoints.
func (s *WebhooksService) List(ctx context.Context) ([]Webhook, error) {
	var out struct {
		Data []Webhook `json:"data"`
	}
	if err := s.c.rest(ctx, "webhooks.list", safe, http.MethodGet, "/webhooks", nil, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// Get returns one endpoint, or a *NotFoundError.
func (s *WebhooksService) Get(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	err := s.c.rest(ctx, "webhooks.get", safe, http.MethodGet, webhookPath(id), nil, &w)
	return ptrOrNil(&w, err)
}

// Update changes an endpoint's URL, event types or active flag. Setting
// absolute values is idempotent, so it is retried like a read.
func (s *WebhooksService) Update(ctx context.Context, id string, in UpdateWebhookInput) (*Webhook, error) {
	var w Webhook
	err := s.c.rest(ctx, "webhooks.update", safe, http.MethodPatch, webhookPath(id), in, &w)
	return ptrOrNil(&w, err)
}

// Delete removes an endpoint; an unknown one is a *NotFoundError.
func (s *WebhooksService) Delete(ctx context.Context, id string) error {
	return s.c.rest(ctx, "webhooks.delete", once, http.MethodDelete, webhookPath(id), nil, nil)
}

// Test sends a signed webhook.test event to the endpoint and reports its answer.
func (s *WebhooksService) Test(ctx context.Context, id string) (*WebhookTestResult, error) {
	var r WebhookTestResult
	err := s.c.rest(ctx, "webhooks.test", once, http.MethodPost, webhookPath(id, "test"), nil, &r)
	return ptrOrNil(&r, err)
}

// RotateSecret gives the endpoint a new secret, returned in the answer's
// Secret; for 24 hours deliveries are signed with both the new and the old.
func (s *WebhooksService) RotateSecret(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	err := s.c.rest(ctx, "webhooks.rotateSecret", once, http.MethodPost, webhookPath(id, "secret", "rotate"), nil, &w)
	return ptrOrNil(&w, err)
}

// Deliveries returns one page of an endpoint's delivery attempts, newest first.
func (s *WebhooksService) Deliveries(ctx context.Context, id string, p DeliveriesParams) (*DeliveryPage, error) {
	q := url.Values{}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.After != "" {
		q.Set("after", p.After)
	}
	path := webhookPath(id, "deliveries")
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		Data       []WebhookDelivery `json:"data"`
		NextCursor *string           `json:"next_cursor"`
	}
	if err := s.c.rest(ctx, "webhooks.deliveries", safe, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	page := &DeliveryPage{Deliveries: out.Data}
	if out.NextCursor != nil {
		page.NextCursor = *out.NextCursor
	}
	return page, nil
}

// DeliveriesAll iterates over every delivery attempt of an endpoint, page
// after page from p.After on; the first error ends it.
func (s *WebhooksService) DeliveriesAll(ctx context.Context, id string, p DeliveriesParams) iter.Seq2[WebhookDelivery, error] {
	return every(ctx, p.After, func(ctx context.Context, after string) ([]WebhookDelivery, PageInfo, error) {
		p.After = after
		page, err := s.Deliveries(ctx, id, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Deliveries, PageInfo{EndCursor: page.NextCursor, HasNextPage: page.NextCursor != ""}, nil
	})
}

// Redeliver queues another delivery of an event to the endpoint.
func (s *WebhooksService) Redeliver(ctx context.Context, webhookID, eventID string) error {
	var out struct {
		Queued bool `json:"queued"`
	}
	if err := s.c.rest(ctx, "webhooks.redeliver", once, http.MethodPost, webhookPath(webhookID, "redeliver"), map[string]string{"event_id": eventID}, &out); err != nil {
		return err
	}
	if !out.Queued {
		return fmt.Errorf("agenttrust webhooks.redeliver: the service did not queue the delivery")
	}
	return nil
}
