.DEFAULT_GOAL := help
GO ?= go

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

run: ## run the service (uses or starts a local Postgres when DATABASE_URL is unset)
	$(GO) run .

test: ## gofmt and vet, a short fuzz of every parser (TEST_FUZZTIME each, default 2000x: a count, since a very short -fuzztime duration can fail spuriously with "context deadline exceeded"), then every test with the race detector, the README walk-through among them (needs Postgres on 127.0.0.1:5432, bash and curl)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	FUZZTIME=$(or $(TEST_FUZZTIME),2000x) GO=$(GO) bash tools/fuzz/run.sh
	$(GO) test -race -count=1 ./...

generate: ## regenerate graph/ from schema.graphqls and gqlgen.yml
	$(GO) generate ./...

lint: ## gofmt, vet, staticcheck (go tool, pinned in go.mod), check that go generate leaves graph/ unchanged, and graphql-schema-linter's Relay rules on schema.graphqls (needs npm)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) generate ./... && git diff --exit-code -- graph/
	bash tools/schemalint/run.sh

bench: ## the load scenarios (bench/load) against a real server process, each beside its baseline in the same run, as one table; BENCH_QUICK=1 for a short form
	bash -c 'ulimit -n 65536 2>/dev/null || ulimit -n $$(ulimit -Hn); $(GO) run ./bench/load'

bench-go: ## Go benchmarks through the HTTP handler, then the pgbench baselines
	$(GO) test -run '^$$' -bench . -benchtime 2s -count 1 ./resolvers/
	bash bench/run-pgbench.sh

soak: ## mixed traffic with subscribers and webhooks for SOAK_DURATION (default 10m); fails unless goroutines, heap, fds and DB connections return to their starting level
	bash -c 'ulimit -n 65536 2>/dev/null || ulimit -n $$(ulimit -Hn); $(GO) run ./bench/load -soak $(or $(SOAK_DURATION),10m)'

bench-overhead: ## per-request overhead: evaluateTrust vs { __typename } latency, executeTransaction vs pgbench (same SQL, same database), as ratios
	$(GO) test -run '^$$' -bench 'Overhead' -benchtime $(or $(BENCHTIME),3s) -count $(or $(COUNT),3) ./resolvers/
	@uptime

fuzz: ## run every fuzz target for FUZZTIME each (default 10s), e.g. make fuzz FUZZTIME=1m
	FUZZTIME=$(or $(FUZZTIME),10s) GO=$(GO) bash tools/fuzz/run.sh

hostile: ## the hostile request table alone: abusive GraphQL, HTTP and websocket requests, database unchanged
	$(GO) test -race -count=1 -run TestHostileRequests ./internal/hostile/

console: ## rebuild the console (console/: TypeScript, React, Relay) from its lock file into httpapi/console/dist, byte for byte: Relay artifacts, type check, esbuild bundle (needs node and npm)
	cd console && npm ci --no-audit --no-fund && node build.mjs

console-screenshots: ## walk the console in headless Chromium and save a screenshot of every page to docs/console/ (needs node, Chromium, Postgres)
	mkdir -p $(CURDIR)/docs/console
	CONSOLE_SCREENSHOTS=$(CURDIR)/docs/console $(GO) test -count=1 -run TestConsoleInChromium ./httpapi/console/

playground: ## refresh the embedded GraphiQL assets from npm (versions pinned in playground/package-lock.json)
	bash playground/build.sh

screenshot: ## open the playground in headless Chromium and save docs/playground.png
	PLAYGROUND_SCREENSHOT=$(CURDIR)/docs/playground.png $(GO) test -count=1 -run TestPlaygroundInChromium ./httpapi/

bench-read: ## the dashboard's requests under wrk load (the agents page plain, with a second root field, with trust, and the mix of bench/dashboard; EACH=1 adds each request of the mix alone; TARGETS="stock plain,plain" runs only those): service vs stock gqlgen serving the same pages (bench/stock) vs a bare pgx + encoding/json handler serving the plain page (bench/floor) vs PostGraphile serving the plain and trust pages from the same tables (bench/postgraphile, installed from its lock file with npm when npm is there), same rows, same run, with CPU per request and collections; GOGC and GOMEMLIMIT pass through to the servers; then executeTransaction under wrk vs pgbench running the same SQL in the same database (EXECUTE=none skips it)
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get install -y wrk >/dev/null; } || \
		{ echo "bench-read needs wrk: apt-get install wrk (Debian/Ubuntu) or brew install wrk"; exit 1; }
	@[ "$(EXECUTE)" = none ] || command -v $(or $(PGBENCH),pgbench) >/dev/null || \
		{ echo "bench-read's executeTransaction target needs pgbench: apt-get install postgresql-client, or EXECUTE=none"; exit 1; }
	@[ -d bench/postgraphile/node_modules ] || ! command -v npm >/dev/null || (cd bench/postgraphile && npm ci --no-audit --no-fund >/dev/null) || \
		echo "bench-read: could not install PostGraphile (bench/postgraphile): its targets are skipped"
	$(GO) run ./bench/read

audit: ## run graphql-http's GraphQL-over-HTTP audit suite against a freshly started service (needs npm)
	bash tools/httpaudit/run.sh

relaycheck: ## page agents with Relay's own runtime (relay-runtime and relay-compiler from npm, no React) against a freshly started service: two pages forwards, one backwards (needs node, npm, Postgres)
	bash tools/relaycheck/run.sh

webhookcheck: ## verify real webhook deliveries with the standardwebhooks npm package (needs node, npm, Postgres)
	$(GO) test -count=1 -v -run TestNodeVerifiesDeliveries ./webhook/delivery/

bench-webhooks: ## webhook delivery throughput (20,000 deliveries to 1 and 50 endpoints, vs plain net/http) and commit-to-first-attempt latency
	$(GO) test -run '^$$' -bench . -benchtime $(or $(ROUNDS),3)x -count 1 ./webhook/delivery/ -deliveries 20000

chaos: ## fault scenarios against the real binary, long form, printing a results table: kill -9 under load, Postgres restarted, hung/slow/huge-body webhook endpoints, three processes, the daily budget under storms and a crash, a noisy neighbour organization, weekly and velocity limits with approvals under a crash, a mandate under a storm and a crash, a noisy neighbour on the database, live streams and webhook endpoints across Postgres restarts (needs the PostgreSQL server binaries; `go test ./...` runs the short form, but of the last only with -chaos.live)
	$(GO) test -count=1 -v -timeout 30m -parallel 2 ./internal/chaos/ -chaos.long

livecheck: ## subscribe with the real graphql-ws and graphql-sse npm clients against a freshly started service (needs npm)
	bash tools/livecheck/run.sh

livebench: ## 10,000 websocket subscriptions over 100 organizations: memory per subscription, commit-to-receipt latency, statements per wake-up
	bash -c 'ulimit -n 65536 2>/dev/null || ulimit -n $$(ulimit -Hn); $(GO) run ./bench/livebench'

.PHONY: console console-screenshots chaos fuzz hostile livecheck livebench help run test generate lint bench bench-go soak bench-read bench-overhead audit playground screenshot webhookcheck bench-webhooks relaycheck
