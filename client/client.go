// Package client is the Go client library of the Agent Trust and Transaction
// Service: every operation as a typed method, exact amounts, errors to branch
// on with errors.As and errors.Is, retries that never pay twice, live events
// that resume across disconnects, and Standard Webhooks verification.
//
// Create one Client and share it; it is safe for concurrent use:
//
//	c, err := client.New(client.Options{APIKey: os.Getenv("AGENTTRUST_API_KEY")})
//	agent, err := c.Agents.Register(ctx, client.RegisterAgentInput{...})
package client

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Version is this library's version, sent in the User-Agent.
const Version = "0.1.0"

// Defaults of Options.
const (
	DefaultBaseURL    = "http://localhost:8080"
	DefaultTimeout    = 30 * time.Second
	DefaultMaxRetries = 3
	// APIKeyEnv is read when Options.APIKey is empty.
	APIKeyEnv = "AGENTTRUST_API_KEY"
	// BaseURLEnv is read when Options.BaseURL is empty.
	BaseURLEnv = "AGENTTRUST_BASE_URL"
)

// Options configure a Client; zero fields take the defaults.
type Options struct {
	// APIKey authenticates every request; empty reads $AGENTTRUST_API_KEY.
	APIKey string
	// BaseURL is the service's root URL; empty reads $AGENTTRUST_BASE_URL,
	// and without it http://localhost:8080.
	BaseURL string
	// Timeout bounds each attempt of each request; default 30 s.
	Timeout time.Duration
	// MaxRetries is how many times a failed request is retried; default 3.
	// Set NoRetries to disable retrying (a zero MaxRetries means the default).
	MaxRetries int
	// NoRetries makes every request a single attempt.
	NoRetries bool
	// RetryWaitMin and RetryWaitMax bound the exponential backoff between
	// attempts (full jitter); defaults 500 ms and 20 s. A server's Retry-After
	// overrides them.
	RetryWaitMin, RetryWaitMax time.Duration
	// HTTPClient sends the requests; default a client of its own.
	HTTPClient *http.Client
	// UserAgent is prepended to the library's own agenttrust-go/<version>.
	UserAgent string
	// Logger receives retries and reconnects at debug and warn level; nil
	// logs nothing.
	Logger *slog.Logger
}

// Client calls the service. Its groups hold the operations.
type Client struct {
	// Agents registers, reads, updates, suspends and reinstates agents.
	Agents *AgentsService
	// Trust reads and evaluates trust scores and files disputes.
	Trust *TrustService
	// Transactions executes, lists, reverses and exports transactions.
	Transactions *TransactionsService
	// Webhooks manages webhook endpoints through the REST edge.
	Webhooks *WebhooksService
	// Events streams the organization's live events.
	Events *EventsService
	// Keys lists, creates and revokes API keys, and tells which key the
	// client holds.
	Keys *KeysService
	// Mandates grants, reads and revokes mandates: spend authority for one task.
	Mandates *MandatesService
	// Dashboard reads spend series and the overview counts.
	Dashboard *DashboardService

	apiKey     string
	base       *url.URL
	timeout    time.Duration
	maxRetries int
	waitMin    time.Duration
	waitMax    time.Duration
	http       *http.Client
	userAgent  string
	log        *slog.Logger
}

// ErrNoAPIKey is returned by New when neither Options.APIKey nor
// $AGENTTRUST_API_KEY holds a key.
var ErrNoAPIKey = errors.New("agenttrust: no API key: set Options.APIKey or " + APIKeyEnv)

// New returns a Client for o. It fails with ErrNoAPIKey without a key and with
// a descriptive error for a malformed BaseURL or a negative duration.
func New(o Options) (*Client, error) {
	key, u, err := o.endpoint()
	if err != nil {
		return nil, err
	}
	if o.Timeout < 0 || o.MaxRetries < 0 || o.RetryWaitMin < 0 || o.RetryWaitMax < 0 {
		return nil, errors.New("agenttrust: Timeout, MaxRetries, RetryWaitMin and RetryWaitMax must not be negative")
	}
	c := &Client{
		apiKey:     key,
		base:       u,
		timeout:    cmp.Or(o.Timeout, DefaultTimeout),
		maxRetries: cmp.Or(o.MaxRetries, DefaultMaxRetries),
		waitMin:    cmp.Or(o.RetryWaitMin, 500*time.Millisecond),
		waitMax:    cmp.Or(o.RetryWaitMax, 20*time.Second),
		http:       o.HTTPClient,
		userAgent:  "agenttrust-go/" + Version,
		log:        o.Logger,
	}
	if o.NoRetries {
		c.maxRetries = 0
	}
	c.waitMax = max(c.waitMax, c.waitMin)
	if c.http == nil {
		c.http = &http.Client{}
	}
	if ua := strings.TrimSpace(o.UserAgent); ua != "" {
		c.userAgent = ua + " " + c.userAgent
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.Agents = &AgentsService{c: c}
	c.Trust = &TrustService{c: c}
	c.Keys = &KeysService{c: c}
	c.Transactions = &TransactionsService{c: c}
	c.Webhooks = &WebhooksService{c: c}
	c.Events = &EventsService{c: c}
	c.Mandates = &MandatesService{c: c}
	c.Dashboard = &DashboardService{c: c}
	return c, nil
}

// endpoint is the API key and the base URL o names, or the environment's
// when o leaves them empty: ErrNoAPIKey without a key, and a descriptive
// error for a base URL that is not an absolute http or https URL.
func (o Options) endpoint() (key string, base *url.URL, err error) {
	key = o.APIKey
	if key == "" {
		key = os.Getenv(APIKeyEnv)
	}
	if strings.TrimSpace(key) == "" {
		return "", nil, ErrNoAPIKey
	}
	raw := cmp.Or(o.BaseURL, os.Getenv(BaseURLEnv), DefaultBaseURL)
	base, err = url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return "", nil, fmt.Errorf("agenttrust: BaseURL %q must be an absolute http or https URL", raw)
	}
	return key, base, nil
}

// identify sets the headers every request to the service carries: the
// API key and the library's User-Agent.
func (c *Client) identify(h http.Header) {
	h.Set("Authorization", "Bearer "+c.apiKey)
	h.Set("User-Agent", c.userAgent)
}

// endpoint is the absolute URL of path under the base URL.
func (c *Client) endpoint(path string) string {
	return c.base.String() + path
}
