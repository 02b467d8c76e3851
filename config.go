package main

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/delivery"
	"github.com/agenttrust/service/webhook/outbound"
)

// Config is the service configuration: environment variables, mirrored by
// flags (newCommand defines them).
type Config struct {
	DatabaseURL      string
	DatabaseMaxConns int // DATABASE_MAX_CONNS: the one pool's size, shared by bun, River and pgx
	ListenAddr       string
	BootstrapAPIKey  string
	EncryptionKey    string        // base64 keys, comma-separated; unset: generated into the state directory
	keys             *keyring.Ring // EncryptionKey parsed by Validate; nil when unset
	LogFormat        string
	LogLevel         string
	HTTP             httpapi.Config
	Webhooks         WebhookConfig
	// rateLimitRPS, rateLimitBurst and wsAllowedOrigins hold the flags' text
	// until Validate parses them, so that every bad setting is reported at once.
	rateLimitRPS, rateLimitBurst, wsAllowedOrigins string
	// trustedProxies and liveCaps (LIVE_UNAUTHENTICATED_PER_ADDRESS,
	// LIVE_CONNECTIONS_PER_ORG, LIVE_SUBSCRIPTIONS_PER_ORG) hold the flags'
	// text until Validate parses them.
	trustedProxies string
	liveCaps       [3]string
	// databaseMaxConns holds DATABASE_MAX_CONNS' text until Validate parses it.
	databaseMaxConns string
	// MaxAPIKeysPerOrg is MAX_API_KEYS_PER_ORG: the most unrevoked API keys
	// an organization holds; maxAPIKeysPerOrg is its text until Validate.
	MaxAPIKeysPerOrg int
	maxAPIKeysPerOrg string
	// The WEBHOOK_* flags' text, parsed by Validate.
	webhookAllowPrivate, webhookDisableAfter, webhookRetention, webhookOrgConcurrency string
	// LiveReplayMaxEvents is LIVE_REPLAY_MAX_EVENTS: the most stored events
	// a subscription's after replays.
	LiveReplayMaxEvents int
	// exportMaxBytes, liveReplayMaxEvents and simulationMax hold
	// EXPORT_MAX_BYTES', LIVE_REPLAY_MAX_EVENTS' and
	// SIMULATION_MAX_TRANSACTIONS' text until Validate parses them.
	exportMaxBytes, liveReplayMaxEvents, simulationMax string
	// ApprovalMaxPending is APPROVAL_MAX_PENDING: the most transactions
	// waiting for approval per sending agent.
	ApprovalMaxPending int
	// DatabaseConnsPerOrg is DATABASE_CONNS_PER_ORG: the most of the pool's
	// connections one organization's requests hold at once.
	DatabaseConnsPerOrg int
	// approvalMaxPending and databaseConnsPerOrg hold APPROVAL_MAX_PENDING's
	// and DATABASE_CONNS_PER_ORG's text until Validate parses them.
	approvalMaxPending, databaseConnsPerOrg string
}

// WebhookConfig is the webhook delivery configuration (WEBHOOK_*).
type WebhookConfig struct {
	AllowPrivateNetworks bool   // WEBHOOK_ALLOW_PRIVATE_NETWORKS: development and tests only
	CAFile               string // WEBHOOK_CA_FILE: extra PEM roots
	Schedule             string // WEBHOOK_RETRY_SCHEDULE
	DisableAfter         int    // WEBHOOK_DISABLE_AFTER
	Retention            time.Duration
	OrgConcurrency       int // WEBHOOK_ORG_CONCURRENCY: one organization's share of a replica's deliveries
	// Parsed by Validate from Schedule and CAFile, so Open reads each once.
	schedule webhook.Schedule
	roots    *x509.CertPool
}

// Validate parses and checks the settings, reporting every bad one at once
// by its variable name.
func (c *Config) Validate() error {
	var errs []error
	if c.rateLimitRPS != "" {
		rps, err := strconv.ParseFloat(c.rateLimitRPS, 64)
		if err != nil || rps <= 0 || math.IsInf(rps, 0) || math.IsNaN(rps) {
			errs = append(errs, fmt.Errorf("RATE_LIMIT_RPS (--rate-limit-rps) must be a positive number (got %q)", c.rateLimitRPS))
		}
		c.HTTP.RateLimitRPS = rps
	}
	wholeNumber(&errs, "RATE_LIMIT_BURST", "rate-limit-burst", c.rateLimitBurst, 1, 0, &c.HTTP.RateLimitBurst)
	c.DatabaseMaxConns = db.DefaultMaxConns
	wholeNumber(&errs, "DATABASE_MAX_CONNS", "database-max-conns", c.databaseMaxConns, 1, db.MaxConnsLimit, &c.DatabaseMaxConns)
	c.MaxAPIKeysPerOrg = auth.DefaultMaxKeysPerOrg
	wholeNumber(&errs, "MAX_API_KEYS_PER_ORG", "max-api-keys-per-org", c.maxAPIKeysPerOrg, 1, 0, &c.MaxAPIKeysPerOrg)
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("LOG_FORMAT (--log-format) must be text or json (got %q)", c.LogFormat))
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL (--log-level) must be debug, info, warn or error (got %q)", c.LogLevel))
	}
	if c.EncryptionKey != "" {
		keys, err := keyring.Parse(c.EncryptionKey)
		if err != nil {
			errs = append(errs, err)
		}
		c.keys = keys
	}
	errs = append(errs, c.validateWebhooks()...)
	errs = append(errs, c.validateEdge()...)
	errs = append(errs, c.validateReadBounds()...)
	errs = append(errs, c.validateTenantBounds()...)
	c.HTTP.WSAllowedOrigins = splitOrigins(c.wsAllowedOrigins)
	for _, o := range c.HTTP.WSAllowedOrigins {
		if u, err := url.Parse(o); o != "*" && (err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/")) {
			errs = append(errs, fmt.Errorf("WS_ALLOWED_ORIGINS: %q is not an origin such as https://app.example.com (or *)", o))
		}
	}
	if c.ListenAddr == "" {
		errs = append(errs, errors.New("LISTEN_ADDR must not be empty"))
	}
	// A key pasted with a trailing newline or spaces means the key without
	// them; one the edge would refuse as malformed can never authenticate.
	c.BootstrapAPIKey = strings.TrimSpace(c.BootstrapAPIKey)
	if c.BootstrapAPIKey != "" {
		if err := auth.CheckKey(c.BootstrapAPIKey); err != nil {
			errs = append(errs, fmt.Errorf("BOOTSTRAP_API_KEY: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return nil
}

// Logger builds the structured logger the configuration asks for.
func (c *Config) Logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(c.LogLevel)) // validated already
	opts := &slog.HandlerOptions{Level: lvl}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func splitOrigins(v string) []string {
	var out []string
	for _, o := range strings.Split(v, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// validateReadBounds parses EXPORT_MAX_BYTES, LIVE_REPLAY_MAX_EVENTS and
// SIMULATION_MAX_TRANSACTIONS; unset ones take their defaults.
func (c *Config) validateReadBounds() []error {
	var errs []error
	c.HTTP.ExportMaxBytes = transaction.DefaultExportMaxBytes
	wholeNumber(&errs, "EXPORT_MAX_BYTES", "export-max-bytes", c.exportMaxBytes, 1<<10, 0, &c.HTTP.ExportMaxBytes)
	c.LiveReplayMaxEvents = live.DefaultMaxReplay
	wholeNumber(&errs, "LIVE_REPLAY_MAX_EVENTS", "live-replay-max-events", c.liveReplayMaxEvents, 1, 0, &c.LiveReplayMaxEvents)
	c.HTTP.SimulationMaxTransactions = agent.DefaultSimulationMax
	wholeNumber(&errs, "SIMULATION_MAX_TRANSACTIONS", "simulation-max-transactions", c.simulationMax, 1, agent.MaxSimulationMax, &c.HTTP.SimulationMaxTransactions)
	return errs
}

// validateTenantBounds parses the bounds on what one sender or
// organization may hold (APPROVAL_MAX_PENDING, DATABASE_CONNS_PER_ORG, the
// latter at most DATABASE_MAX_CONNS); unset ones take their defaults.
func (c *Config) validateTenantBounds() []error {
	var errs []error
	c.ApprovalMaxPending = policy.DefaultMaxPending
	wholeNumber(&errs, "APPROVAL_MAX_PENDING", "approval-max-pending", c.approvalMaxPending, 1, 0, &c.ApprovalMaxPending)
	c.DatabaseConnsPerOrg = db.DefaultConnsPerOrg(c.DatabaseMaxConns)
	wholeNumber(&errs, "DATABASE_CONNS_PER_ORG", "database-conns-per-org", c.databaseConnsPerOrg, 1, max(c.DatabaseMaxConns, 1), &c.DatabaseConnsPerOrg)
	return errs
}

// validateWebhooks parses the WEBHOOK_* settings; unset ones take their defaults.
func (c *Config) validateWebhooks() []error {
	var errs []error
	w := &c.Webhooks
	if c.webhookAllowPrivate != "" {
		allow, err := strconv.ParseBool(c.webhookAllowPrivate)
		if err != nil {
			errs = append(errs, fmt.Errorf("WEBHOOK_ALLOW_PRIVATE_NETWORKS (--webhook-allow-private-networks) must be true or false (got %q)", c.webhookAllowPrivate))
		}
		w.AllowPrivateNetworks = allow
	}
	if w.Schedule == "" {
		w.Schedule = webhook.DefaultSchedule
	}
	schedule, err := webhook.ParseSchedule(w.Schedule)
	if err != nil {
		errs = append(errs, err)
	}
	w.schedule = schedule
	w.DisableAfter = webhook.DefaultDisableAfter
	wholeNumber(&errs, "WEBHOOK_DISABLE_AFTER", "webhook-disable-after", c.webhookDisableAfter, 1, 0, &w.DisableAfter)
	w.Retention = webhook.DefaultRetention
	if c.webhookRetention != "" {
		d, err := time.ParseDuration(c.webhookRetention)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("WEBHOOK_RETENTION (--webhook-retention) must be a positive duration such as 720h (got %q)", c.webhookRetention))
		}
		w.Retention = d
	}
	w.OrgConcurrency = delivery.DefaultPerOrganization // at most the delivery workers of a replica
	wholeNumber(&errs, "WEBHOOK_ORG_CONCURRENCY", "webhook-org-concurrency", c.webhookOrgConcurrency, 1, delivery.DefaultWorkers, &w.OrgConcurrency)
	if w.CAFile != "" {
		roots, err := outbound.LoadCAFile(w.CAFile)
		if err != nil {
			errs = append(errs, err)
		}
		w.roots = roots
	}
	return errs
}

// validateEdge parses TRUSTED_PROXIES and the live connection caps; unset
// ones take their defaults.
func (c *Config) validateEdge() []error {
	var errs []error
	c.HTTP.TrustedProxies = nil
	for _, v := range splitOrigins(c.trustedProxies) {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				errs = append(errs, fmt.Errorf("TRUSTED_PROXIES (--trusted-proxies): %q is not a CIDR such as 10.0.0.0/8 or an IP address", v))
				continue
			}
			a = a.Unmap().WithZone("")
			p = netip.PrefixFrom(a, a.BitLen())
		}
		c.HTTP.TrustedProxies = append(c.HTTP.TrustedProxies, p.Masked())
	}
	caps := [...]struct {
		name, flag string
		dst        *int
	}{
		{"LIVE_UNAUTHENTICATED_PER_ADDRESS", "live-unauthenticated-per-address", &c.HTTP.MaxUnauthenticatedPerAddress},
		{"LIVE_CONNECTIONS_PER_ORG", "live-connections-per-org", &c.HTTP.MaxConnectionsPerOrg},
		{"LIVE_SUBSCRIPTIONS_PER_ORG", "live-subscriptions-per-org", &c.HTTP.MaxSubscriptionsPerOrg},
	}
	for i, cp := range caps {
		wholeNumber(&errs, cp.name, cp.flag, c.liveCaps[i], 1, 0, cp.dst)
	}
	return errs
}

// wholeNumber parses a setting's text into dst as a whole number from lo to
// hi (0: no upper bound); unset text leaves dst as it is, and a bad value
// appends an error naming the variable and its flag.
func wholeNumber(errs *[]error, name, flag, text string, lo, hi int, dst *int) {
	if text == "" {
		return
	}
	n, err := strconv.Atoi(text)
	switch {
	case hi > 0 && (err != nil || n < lo || n > hi):
		*errs = append(*errs, fmt.Errorf("%s (--%s) must be a whole number from %d to %d (got %q)", name, flag, lo, hi, text))
	case err != nil || n < lo:
		*errs = append(*errs, fmt.Errorf("%s (--%s) must be a whole number of at least %d (got %q)", name, flag, lo, text))
	}
	*dst = n
}
