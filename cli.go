package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/receiver"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/delivery"
)

// Exit codes of the binary; docs/cli.md lists them.
const (
	exitFailure = 1 // the command ran and failed (database unreachable, not found, …)
	exitUsage   = 2 // the command line or the configuration is wrong
	exitDrift   = 3 // trust rebuild found drifted counters and was not asked to fix them
)

// usageError is a mistake on the command line or in the configuration; the
// binary exits with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// driftError reports counters that trust rebuild found drifted; exitDrift.
type driftError struct{ agents int }

func (e driftError) Error() string {
	return fmt.Sprintf("trust counters drifted for %d agents: run `trust rebuild --fix` to store the recount", e.agents)
}

// exitCode maps a command's error to the process exit status.
func exitCode(err error) int {
	var u usageError
	var d driftError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &d):
		return exitDrift
	}
	return exitFailure
}

// envSource reads a flag's default from the (injectable) environment; an empty
// variable counts as unset.
type envSource struct {
	getenv func(string) string
	key    string
}

func (e envSource) Lookup() (string, bool) { v := e.getenv(e.key); return v, v != "" }
func (e envSource) IsFromEnv() bool        { return true }
func (e envSource) Key() string            { return e.key }
func (e envSource) String() string         { return fmt.Sprintf("environment variable %q", e.key) }
func (e envSource) GoString() string       { return fmt.Sprintf("envSource{key:%q}", e.key) }

// newCommand builds the command tree of the program called name (the
// binary's own name, used in help and errors); cfg receives the
// configuration flags.
func newCommand(cfg *Config, name string, getenv func(string) string, stdout, stderr io.Writer) *cli.Command {
	env := func(key string) cli.ValueSourceChain { return cli.NewValueSourceChain(envSource{getenv, key}) }
	// Every command opens the database, so these flags are global.
	global := []cli.Flag{
		&cli.StringFlag{Name: "database-url", Usage: "Postgres `URL`; unset: use the Postgres on 127.0.0.1:5432 or start a private one",
			Sources: env("DATABASE_URL"), Destination: &cfg.DatabaseURL},
		&cli.StringFlag{Name: "database-max-conns", Usage: "`N` connections in the database pool, shared by every use (default 20)",
			Sources: env("DATABASE_MAX_CONNS"), Destination: &cfg.databaseMaxConns},
		&cli.StringFlag{Name: "max-api-keys-per-org", Usage: "at most `N` unrevoked API keys per organization (default 100)",
			Sources: env("MAX_API_KEYS_PER_ORG"), Destination: &cfg.maxAPIKeysPerOrg},
		&cli.StringFlag{Name: "bootstrap-api-key", Usage: "make sure an organization holding this API `KEY` exists (idempotent)",
			Sources: env("BOOTSTRAP_API_KEY"), Destination: &cfg.BootstrapAPIKey},
		&cli.StringFlag{Name: "log-format", Usage: "log `FORMAT`: text or json", Value: "text",
			Sources: env("LOG_FORMAT"), Destination: &cfg.LogFormat},
		&cli.StringFlag{Name: "log-level", Usage: "log `LEVEL`: debug, info, warn or error", Value: "info",
			Sources: env("LOG_LEVEL"), Destination: &cfg.LogLevel},
	}
	// The server's own flags go on serve and on the root, which serves by default.
	serveFlags := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "HTTP listen `ADDRESS`", Value: ":8080", Local: true,
				Sources: env("LISTEN_ADDR"), Destination: &cfg.ListenAddr},
			&cli.StringFlag{Name: "rate-limit-rps", Usage: "sustained `N` requests per second per organization (per replica)", Value: "50", Local: true,
				Sources: env("RATE_LIMIT_RPS"), Destination: &cfg.rateLimitRPS},
			&cli.StringFlag{Name: "rate-limit-burst", Usage: "burst of `N` requests per organization", Value: "100", Local: true,
				Sources: env("RATE_LIMIT_BURST"), Destination: &cfg.rateLimitBurst},
			&cli.StringFlag{Name: "export-max-bytes", Usage: "largest exportTransactions content, in `BYTES` (larger: GET /transactions/export)", Value: "2097152", Local: true,
				Sources: env("EXPORT_MAX_BYTES"), Destination: &cfg.exportMaxBytes},
			&cli.StringFlag{Name: "simulation-max-transactions", Usage: "most `TRANSACTIONS` simulatePolicy replays", Value: strconv.Itoa(agent.DefaultSimulationMax), Local: true,
				Sources: env("SIMULATION_MAX_TRANSACTIONS"), Destination: &cfg.simulationMax},
			&cli.StringFlag{Name: "live-replay-max-events", Usage: "most stored `EVENTS` a subscription's after replays", Value: "1000", Local: true,
				Sources: env("LIVE_REPLAY_MAX_EVENTS"), Destination: &cfg.liveReplayMaxEvents},
			&cli.StringFlag{Name: "database-conns-per-org", Usage: "`N` of the pool's connections one organization's requests may hold at once (default a quarter of the pool)",
				Local: true, Sources: env("DATABASE_CONNS_PER_ORG"), Destination: &cfg.databaseConnsPerOrg},
			&cli.StringFlag{Name: "approval-max-pending", Usage: "`N` transactions waiting for approval per sending agent, at most", Value: "50", Local: true,
				Sources: env("APPROVAL_MAX_PENDING"), Destination: &cfg.approvalMaxPending},
			&cli.StringFlag{Name: "ws-allowed-origins", Usage: "browser `ORIGINS` allowed to open websockets, comma-separated, * for any; unset: same origin only",
				Local: true, Sources: env("WS_ALLOWED_ORIGINS"), Destination: &cfg.wsAllowedOrigins},
			&cli.StringFlag{Name: "trusted-proxies", Usage: "`CIDRS` of proxies whose X-Forwarded-For names the client, comma-separated; unset: none",
				Local: true, Sources: env("TRUSTED_PROXIES"), Destination: &cfg.trustedProxies},
			&cli.StringFlag{Name: "live-unauthenticated-per-address", Usage: "`N` websockets per client address not yet past connection_init", Value: "64",
				Local: true, Sources: env("LIVE_UNAUTHENTICATED_PER_ADDRESS"), Destination: &cfg.liveCaps[0]},
			&cli.StringFlag{Name: "live-connections-per-org", Usage: "`N` open websocket and SSE connections per organization (per replica)", Value: "1000",
				Local: true, Sources: env("LIVE_CONNECTIONS_PER_ORG"), Destination: &cfg.liveCaps[1]},
			&cli.StringFlag{Name: "live-subscriptions-per-org", Usage: "`N` open subscriptions per organization (per replica)", Value: "10000",
				Local: true, Sources: env("LIVE_SUBSCRIPTIONS_PER_ORG"), Destination: &cfg.liveCaps[2]},
			// A switch: it takes no value, so it cannot swallow the next flag.
			// WEBHOOK_ALLOW_PRIVATE_NETWORKS is read by run and parsed by
			// Validate with the other settings; the flag, when given, wins.
			&cli.BoolFlag{Name: "webhook-allow-private-networks", Usage: "let deliveries reach loopback and private addresses, development and tests only [$WEBHOOK_ALLOW_PRIVATE_NETWORKS=true]", Local: true,
				Action: func(_ context.Context, _ *cli.Command, on bool) error {
					cfg.webhookAllowPrivate = strconv.FormatBool(on)
					return nil
				}},
			&cli.StringFlag{Name: "webhook-ca-file", Usage: "extra PEM roots (`FILE`) trusted for webhook deliveries", Local: true,
				Sources: env("WEBHOOK_CA_FILE"), Destination: &cfg.Webhooks.CAFile},
			&cli.StringFlag{Name: "webhook-retry-schedule", Usage: "`DELAYS` between webhook delivery attempts, comma-separated", Value: webhook.DefaultSchedule, Local: true,
				Sources: env("WEBHOOK_RETRY_SCHEDULE"), Destination: &cfg.Webhooks.Schedule},
			&cli.StringFlag{Name: "webhook-disable-after", Usage: "`N` consecutive failed attempts before an endpoint is disabled", Value: "50", Local: true,
				Sources: env("WEBHOOK_DISABLE_AFTER"), Destination: &cfg.webhookDisableAfter},
			&cli.StringFlag{Name: "webhook-retention", Usage: "how long delivery attempt records are kept (`DURATION`)", Value: "720h", Local: true,
				Sources: env("WEBHOOK_RETENTION"), Destination: &cfg.webhookRetention},
			&cli.StringFlag{Name: "webhook-org-concurrency", Usage: "`N` deliveries (jobs and requests) one organization may have at once in a replica", Value: strconv.Itoa(delivery.DefaultPerOrganization), Local: true,
				Sources: env("WEBHOOK_ORG_CONCURRENCY"), Destination: &cfg.webhookOrgConcurrency},
		}
	}
	main := func(run func(context.Context, *Main, *cli.Command) error) cli.ActionFunc {
		return func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() && cmd.Root() == cmd {
				return usagef("unknown command %q: the commands are serve, migrate, org, apikey, trust and webhook; see `%s --help`", cmd.Args().First(), name)
			}
			if cmd.Args().Present() {
				return usagef("%s: unexpected argument %q; see `%s --help`",
					strings.TrimPrefix(cmd.FullName(), name+" "), cmd.Args().First(), cmd.FullName())
			}
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			return run(ctx, &Main{Config: *cfg, Logger: cfg.Logger(stderr)}, cmd)
		}
	}
	serve := main(func(ctx context.Context, m *Main, _ *cli.Command) error { return m.Serve(ctx) })
	group := func(ctx context.Context, cmd *cli.Command) error {
		_ = cli.ShowSubcommandHelp(cmd)
		if cmd.Args().Present() {
			return usagef("%s: unknown command %q (the commands are listed above)", cmd.Name, cmd.Args().First())
		}
		return usagef("%s: missing command (the commands are listed above)", cmd.Name)
	}

	onUsageError := func(_ context.Context, cmd *cli.Command, err error, _ bool) error {
		if cmd.Root() == cmd {
			return usagef("%v; see `%s --help`", err, name)
		}
		return usagef("%s: %v; see `%s --help`", strings.TrimPrefix(cmd.FullName(), name+" "), err, cmd.FullName())
	}
	root := &cli.Command{
		Name:  name,
		Usage: "the Agent Trust and Transaction Service: GraphQL API, playground and admin commands",
		Description: "Without a command, serve. Every setting is an environment variable; the flags mirror them.\n" +
			"Exit codes: 0 success, 1 failure, 2 wrong command line or configuration, 3 trust counters drifted.\n\n" +
			"Examples:\n" +
			"  " + name + "                          # serve on :8080 (go run . does the same)\n" +
			"  " + name + " org create --name acme   # an organization and its first API key\n" +
			"  " + name + " serve --help",
		Flags:          append(global, serveFlags()...),
		Action:         serve,
		Writer:         stdout,
		ErrWriter:      stderr,
		Suggest:        true,
		ExitErrHandler: func(context.Context, *cli.Command, error) {}, // main decides the exit code
		Commands: []*cli.Command{
			{
				Name:  "serve",
				Usage: "run the HTTP server (the default command)",
				Description: "Serves GraphQL at /graphql, the playground at /, /healthz, /readyz and /metrics; applies pending\n" +
					"migrations first. SIGINT/SIGTERM drain in-flight requests (up to 30 s).\n\n" +
					"Examples:\n" +
					"  " + name + " serve --listen 127.0.0.1:9090\n" +
					"  DATABASE_URL=postgres://u:p@db:5432/att BOOTSTRAP_API_KEY=dev-key-0123456789 " + name + " serve",
				Flags:  serveFlags(),
				Action: serve,
			},
			{
				Name:  "migrate",
				Usage: "apply pending database migrations and exit",
				Description: "Prints {\"applied\": [migration, …]} (empty when the database was up to date). serve migrates too;\n" +
					"run this first when replicas should start on a migrated database.\n\n" +
					"Example:\n" +
					"  " + name + " migrate --database-url postgres://postgres@127.0.0.1:5432/agenttrust",
				Action: main(func(ctx context.Context, m *Main, _ *cli.Command) error {
					defer m.Close()
					err := m.Open(ctx)
					return printJSON(stdout, err, map[string]any{"applied": m.applied})
				}),
			},
			{
				Name:   "org",
				Usage:  "manage organizations",
				Action: group,
				Commands: []*cli.Command{{
					Name:  "create",
					Usage: "create an organization and its first API key (in the database serve uses: the same DATABASE_URL)",
					Description: "Prints {\"org_id\", \"key_id\", \"api_key\"}. The key is shown only now: it is stored as a hash.\n" +
						"It writes to the database named by DATABASE_URL (--database-url): give it the same value as serve,\n" +
						"or leave it unset for both, and both use the local Postgres.\n\n" +
						"Example:\n" +
						"  " + name + " org create --name acme",
					Flags: []cli.Flag{&cli.StringFlag{Name: "name", Usage: "organization `NAME` (1 to 200 characters)"}},
					Action: main(func(ctx context.Context, m *Main, cmd *cli.Command) error {
						name := cmd.String("name")
						if name == "" {
							return usagef("org create: --name is required, e.g. `org create --name acme`")
						}
						return m.withOrgs(ctx, func(s *db.OrgService) error {
							orgID, keyID, apiKey, err := s.CreateOrg(ctx, name)
							return printJSON(stdout, err, map[string]string{"org_id": orgID, "key_id": keyID, "api_key": apiKey})
						})
					}),
				}},
			},
			{
				Name:   "apikey",
				Usage:  "manage API keys",
				Action: group,
				Commands: []*cli.Command{
					{
						Name:  "create",
						Usage: "add an API key to an organization",
						Description: "Prints {\"key_id\", \"api_key\", \"name\", \"role\", \"agent_ids\"}. The key is shown only now.\n" +
							"Roles: admin (everything; the default), agent (reads, and pays, evaluates, reports and\n" +
							"withdraws its disputes for the agents given with --agent), readonly (reads only).\n" +
							"To rotate: create a key, deploy it, then revoke the old one.\n\n" +
							"Examples:\n" +
							"  " + name + " apikey create --org org_…\n" +
							"  " + name + " apikey create --org org_… --name buyer-bot --role agent --agent agent_…",
						Flags: []cli.Flag{
							&cli.StringFlag{Name: "org", Usage: "organization `ID` (org_…)"},
							&cli.StringFlag{Name: "name", Usage: "a `NAME` to tell keys apart"},
							&cli.StringFlag{Name: "role", Value: string(auth.RoleAdmin), Usage: "`ROLE`: admin, agent or readonly"},
							&cli.StringSliceFlag{Name: "agent", Usage: "an agent `ID` (agent_…) an agent key acts for; repeat for several"},
						},
						Action: main(func(ctx context.Context, m *Main, cmd *cli.Command) error {
							org := cmd.String("org")
							if org == "" {
								return usagef("apikey create: --org is required (an org_… id, printed by `org create`)")
							}
							in := auth.KeyInput{Name: cmd.String("name"), Role: auth.Role(cmd.String("role")), AgentIDs: cmd.StringSlice("agent")}
							if !in.Role.Valid() {
								return usagef("apikey create: --role is admin, agent or readonly (got %q)", in.Role)
							}
							return m.withOrgs(ctx, func(s *db.OrgService) error {
								k, apiKey, err := s.IssueKey(ctx, auth.Principal{OrgID: org, Role: auth.RoleAdmin}, in)
								return printJSON(stdout, err, map[string]any{"key_id": k.ID, "api_key": apiKey, "name": k.Name,
									"role": k.Role, "agent_ids": k.AgentIDs})
							})
						}),
					},
					{
						Name:  "revoke",
						Usage: "revoke an API key; it is refused from the next request on",
						Description: "Prints {\"key_id\", \"revoked\": true}. Revoking a revoked key is harmless.\n\n" +
							"Example:\n" +
							"  " + name + " apikey revoke --key key_…",
						Flags: []cli.Flag{&cli.StringFlag{Name: "key", Usage: "API key `ID` (key_…, never the key itself)"}},
						Action: main(func(ctx context.Context, m *Main, cmd *cli.Command) error {
							key := cmd.String("key")
							if key == "" {
								return usagef("apikey revoke: --key is required (a key_… id; `apikey list --org org_…` shows them)")
							}
							return m.withOrgs(ctx, func(s *db.OrgService) error {
								err := s.RevokeKey(ctx, key)
								return printJSON(stdout, err, map[string]any{"key_id": key, "revoked": true})
							})
						}),
					},
					{
						Name:  "list",
						Usage: "list an organization's API keys: ids, roles, agents, creation and last use, never a key",
						Description: "Prints {\"org_id\", \"keys\": [{\"key_id\", \"name\", \"role\", \"agent_ids\", \"created_at\", \"last_used_at\",\n" +
							"\"revoked_at\"}]}, newest\n" +
							"first. last_used_at is recorded at most once a minute per key, so it may lag by a minute.\n\n" +
							"Example:\n" +
							"  " + name + " apikey list --org org_…",
						Flags: []cli.Flag{&cli.StringFlag{Name: "org", Usage: "organization `ID` (org_…)"}},
						Action: main(func(ctx context.Context, m *Main, cmd *cli.Command) error {
							org := cmd.String("org")
							if org == "" {
								return usagef("apikey list: --org is required (an org_… id, printed by `org create`)")
							}
							return m.withOrgs(ctx, func(s *db.OrgService) error {
								keys, err := s.ListKeys(ctx, auth.Principal{OrgID: org, Role: auth.RoleAdmin})
								out := make([]map[string]any, len(keys))
								for i, k := range keys {
									out[i] = map[string]any{"key_id": k.ID, "name": k.Name, "role": k.Role, "agent_ids": k.AgentIDs,
										"created_at":   event.FormatTime(k.CreatedAt),
										"last_used_at": optTime(k.LastUsedAt), "revoked_at": optTime(k.RevokedAt)}
								}
								return printJSON(stdout, err, map[string]any{"org_id": org, "keys": out})
							})
						}),
					},
				},
			},
			{
				Name:   "trust",
				Usage:  "maintain trust scores",
				Action: group,
				Commands: []*cli.Command{{
					Name:  "rebuild",
					Usage: "recount every agent's trust counters from the raw records and report drift",
					Description: "Prints {\"drifted\", \"fixed\", \"agents\": […]}. Exits 3 when counters drifted and --fix was not\n" +
						"given; with --fix it stores the recount (a snapshot and a trust.score_changed event where the\n" +
						"score moves).\n\n" +
						"Examples:\n" +
						"  " + name + " trust rebuild\n" +
						"  " + name + " trust rebuild --fix",
					Flags: []cli.Flag{&cli.BoolFlag{Name: "fix", Usage: "store the recomputed counters"}},
					Action: main(func(ctx context.Context, m *Main, cmd *cli.Command) error {
						defer m.Close()
						if err := m.Open(ctx); err != nil {
							return err
						}
						fix := cmd.Bool("fix")
						drifts, err := m.DB.RebuildTrust(ctx, fix)
						if err := printJSON(stdout, err, map[string]any{"drifted": len(drifts), "fixed": fix && len(drifts) > 0, "agents": drifts}); err != nil {
							return err
						}
						if len(drifts) > 0 && !fix {
							return driftError{len(drifts)}
						}
						return nil
					}),
				}},
			},
			webhookCommand(name, getenv, stdout, stderr, group),
		},
	}
	var setUsage func(*cli.Command)
	setUsage = func(c *cli.Command) {
		c.OnUsageError = onUsageError // not inherited by subcommands
		for _, sub := range c.Commands {
			setUsage(sub)
		}
	}
	setUsage(root)
	return root
}

// webhookCommand is `webhook receive`, a receiver on this machine for trying
// webhooks out (package receiver); group is the action of a command that only
// holds others.
func webhookCommand(name string, getenv func(string) string, stdout, stderr io.Writer, group cli.ActionFunc) *cli.Command {
	env := func(key string) cli.ValueSourceChain { return cli.NewValueSourceChain(envSource{getenv, key}) }
	return &cli.Command{
		Name:   "webhook",
		Usage:  "try webhooks out on this machine",
		Action: group,
		Commands: []*cli.Command{{
			Name:  "receive",
			Usage: "run an HTTPS receiver on this machine that registers itself and prints each delivery it verified",
			Description: "Listens on a loopback address with a certificate of its own (made on first use, kept in --ca-file),\n" +
				"registers itself as a webhook endpoint of the API key's organization, and prints one line per\n" +
				"delivery whose Standard Webhooks signature it verified: `verified <type> <event id> <data>`.\n" +
				"Deliveries reach it only when the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true and\n" +
				"WEBHOOK_CA_FILE set to --ca-file: until then it says what the service answered and asks again\n" +
				"every " + strconv.Itoa(int(receiver.Retry/time.Second)) + " s. Ctrl-C deletes its endpoint and stops it. Development only.\n\n" +
				"Example:\n" +
				"  " + name + " webhook receive --api-key \"$KEY\" --service http://localhost:8080",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "api-key", Usage: "the organization's API `KEY`", Sources: env("AGENTTRUST_API_KEY")},
				&cli.StringFlag{Name: "service", Usage: "the service's base `URL`", Value: "http://localhost:8080", Sources: env("AGENTTRUST_BASE_URL")},
				&cli.StringFlag{Name: "listen", Usage: "loopback `ADDRESS` to receive on (port 0: any free port)", Value: "127.0.0.1:0"},
				&cli.StringFlag{Name: "ca-file", Usage: "`FILE` holding the receiver's certificate, for WEBHOOK_CA_FILE (its key goes beside it, .key)", Value: receiver.DefaultCAFile()},
				&cli.StringFlag{Name: "events", Usage: "event `TYPES` to receive, comma-separated, * for all", Value: "*"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.String("api-key") == "" {
					return usagef("webhook receive: --api-key is required (or AGENTTRUST_API_KEY): the key `org create` printed")
				}
				if cmd.Args().Present() {
					return usagef("webhook receive: unexpected argument %q; see `%s --help`", cmd.Args().First(), cmd.FullName())
				}
				api, err := client.New(client.Options{APIKey: cmd.String("api-key"), BaseURL: cmd.String("service"), NoRetries: true})
				if err != nil {
					return usageError{fmt.Errorf("webhook receive: %w", err)}
				}
				err = receiver.Run(ctx, cmd.String("listen"), receiver.Options{API: api, Events: splitOrigins(cmd.String("events")),
					CAFile: cmd.String("ca-file"), Out: stdout, Log: stderr})
				var notLoopback *receiver.NotLoopbackError
				if errors.As(err, &notLoopback) {
					return usageError{err}
				}
				return err
			},
		}},
	}
}

// run executes one command line of the program as "agenttrust"; it is main
// without the process around it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return runAs(ctx, "agenttrust", args, getenv, stdout, stderr)
}

// runAs executes one command line of the program called name, the name its
// help and errors use.
func runAs(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg := Config{
		EncryptionKey:       getenv("ENCRYPTION_KEY"), // a secret: never a flag, so it stays out of ps and shell history
		webhookAllowPrivate: getenv("WEBHOOK_ALLOW_PRIVATE_NETWORKS"),
	}
	return newCommand(&cfg, name, getenv, stdout, stderr).Run(ctx, append([]string{name}, args...))
}

func printJSON(w io.Writer, err error, v any) error {
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// optTime is a time in the API's format, or null.
func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return event.FormatTime(*t)
}
