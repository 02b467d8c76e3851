#!/usr/bin/env bash
# Checks schema.graphqls against graphql-schema-linter's Relay rules (the
# conventions Relay's and Apollo's pagination helpers expect): every
# connection has edges, nodes' cursors and pageInfo; every connection field
# takes first/after and last/before; PageInfo has the four Relay fields.
# Needs Node with npm (first run: the npm registry).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
npm ci --no-audit --no-fund --silent
npx --no-install graphql-schema-linter \
	--rules relay-connection-types-spec,relay-connection-arguments-spec,relay-page-info-spec \
	../../schema.graphqls
