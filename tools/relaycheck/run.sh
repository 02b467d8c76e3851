#!/usr/bin/env bash
# Builds and starts the service on a spare port with a bootstrap key, makes
# Relay's artifacts from src/AgentList.js with relay-compiler (against a copy
# of schema.graphqls: the compiler reads .graphql files), runs relaycheck.js
# (relay-runtime, no React) against the service, and stops it. Needs Node
# with npm (first run: the npm registry) and Postgres.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
npm ci --no-audit --no-fund --silent
cp ../../schema.graphqls schema.graphql
mkdir -p src/__generated__
npx --no-install relay-compiler >/dev/null
go build -o "$here/agenttrust" ../..
export BOOTSTRAP_API_KEY="relaycheck-$(date +%s)-key" LISTEN_ADDR=127.0.0.1:18091 LOG_LEVEL=error
"$here/agenttrust" & pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$here/agenttrust"' EXIT
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18091/readyz >/dev/null && break; sleep 0.2; done
URL=http://127.0.0.1:18091/graphql API_KEY="$BOOTSTRAP_API_KEY" node relaycheck.js
