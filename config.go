package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/keyring"
)

// Config is the service configuration: environment variables, mirrored by flags.
type Config struct {
	DatabaseURL     string
	ListenAddr      string
	BootstrapAPIKey string
	EncryptionKey   string // base64 keys, comma-separated; unset: generated into the state directory
	LogFormat       string
	LogLevel        string
	HTTP            httpapi.Config
	envErrs         []error
}

// RegisterFlags defines the flags, each defaulting from its environment variable.
func (c *Config) RegisterFlags(fs *flag.FlagSet, getenv func(string) string) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", ""), "Postgres URL; unset: use or start a local Postgres ($DATABASE_URL)")
	fs.StringVar(&c.ListenAddr, "listen", env("LISTEN_ADDR", ":8080"), "HTTP listen address ($LISTEN_ADDR)")
	fs.StringVar(&c.BootstrapAPIKey, "bootstrap-api-key", env("BOOTSTRAP_API_KEY", ""), "ensure an organization holding this API key exists ($BOOTSTRAP_API_KEY)")
	c.EncryptionKey = getenv("ENCRYPTION_KEY") // a secret: never a flag, so it stays out of ps and shell history
	fs.StringVar(&c.LogFormat, "log-format", env("LOG_FORMAT", "text"), "log format: text or json ($LOG_FORMAT)")
	fs.StringVar(&c.LogLevel, "log-level", env("LOG_LEVEL", "info"), "log level: debug, info, warn or error ($LOG_LEVEL)")
	rps, err := strconv.ParseFloat(env("RATE_LIMIT_RPS", "50"), 64)
	if err != nil {
		c.envErrs = append(c.envErrs, fmt.Errorf("RATE_LIMIT_RPS=%q is not a number", getenv("RATE_LIMIT_RPS")))
	}
	burst, err := strconv.Atoi(env("RATE_LIMIT_BURST", "100"))
	if err != nil {
		c.envErrs = append(c.envErrs, fmt.Errorf("RATE_LIMIT_BURST=%q is not a whole number", getenv("RATE_LIMIT_BURST")))
	}
	fs.Func("ws-allowed-origins", "browser origins allowed to open websockets, comma-separated, * for any; unset: same origin only ($WS_ALLOWED_ORIGINS)",
		func(v string) error { c.HTTP.WSAllowedOrigins = splitOrigins(v); return nil })
	c.HTTP.WSAllowedOrigins = splitOrigins(getenv("WS_ALLOWED_ORIGINS"))
	fs.Float64Var(&c.HTTP.RateLimitRPS, "rate-limit-rps", rps, "requests per second per API key ($RATE_LIMIT_RPS)")
	fs.IntVar(&c.HTTP.RateLimitBurst, "rate-limit-burst", burst, "burst of requests per API key ($RATE_LIMIT_BURST)")
}

// Validate reports every bad setting at once, naming the variable.
func (c *Config) Validate() error {
	errs := append([]error(nil), c.envErrs...)
	if c.HTTP.RateLimitRPS <= 0 {
		errs = append(errs, fmt.Errorf("RATE_LIMIT_RPS must be positive (got %v)", c.HTTP.RateLimitRPS))
	}
	if c.HTTP.RateLimitBurst < 1 {
		errs = append(errs, fmt.Errorf("RATE_LIMIT_BURST must be at least 1 (got %d)", c.HTTP.RateLimitBurst))
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("LOG_FORMAT must be text or json (got %q)", c.LogFormat))
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		errs = append(errs, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error (got %q)", c.LogLevel))
	}
	if c.EncryptionKey != "" {
		if _, err := keyring.Parse(c.EncryptionKey); err != nil {
			errs = append(errs, err)
		}
	}
	for _, o := range c.HTTP.WSAllowedOrigins {
		if u, err := url.Parse(o); o != "*" && (err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/")) {
			errs = append(errs, fmt.Errorf("WS_ALLOWED_ORIGINS: %q is not an origin such as https://app.example.com (or *)", o))
		}
	}
	if c.ListenAddr == "" {
		errs = append(errs, errors.New("LISTEN_ADDR must not be empty"))
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
