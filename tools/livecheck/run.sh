#!/usr/bin/env bash
# Builds and starts the service on a spare port with a bootstrap key, runs
# livecheck.mjs (the real graphql-ws and graphql-sse clients) against it, and
# stops it. Needs Node with npm (first run: the npm registry) and Postgres.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
npm ci --no-audit --no-fund --silent
go build -o "$here/agenttrust" ../..
export BOOTSTRAP_API_KEY="livecheck-$(date +%s)-key" LISTEN_ADDR=127.0.0.1:18090 LOG_LEVEL=error
"$here/agenttrust" & pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$here/agenttrust"' EXIT
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18090/readyz >/dev/null && break; sleep 0.2; done
URL=http://127.0.0.1:18090/graphql API_KEY="$BOOTSTRAP_API_KEY" node livecheck.mjs
