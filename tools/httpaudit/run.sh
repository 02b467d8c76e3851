#!/usr/bin/env bash
# Builds and starts the service on a spare port with a bootstrap key, runs the
# graphql-http audit suite against it, and stops it. Needs npm and Postgres.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
npm install --no-audit --no-fund --silent
go build -o "$here/agenttrust" ../..
export BOOTSTRAP_API_KEY="audit-$(date +%s)-key" LISTEN_ADDR=127.0.0.1:18089 LOG_LEVEL=error
"$here/agenttrust" & pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$here/agenttrust"' EXIT
for _ in $(seq 1 50); do curl -sf http://127.0.0.1:18089/readyz >/dev/null && break; sleep 0.2; done
URL=http://127.0.0.1:18089/graphql API_KEY="$BOOTSTRAP_API_KEY" node audit.mjs
