#!/usr/bin/env bash
# Refreshes the GraphiQL assets embedded in the binary (httpapi/playground/assets)
# from the npm versions pinned in package-lock.json: production UMD bundles only.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
out=../httpapi/playground/assets
rm -rf "$out"
mkdir -p "$out"
nm=node_modules
copy() { # copy SRC DEST, dropping the source-map comment (no map is served)
  sed -e 's@^//# sourceMappingURL=.*$@@' -e 's@/\*# sourceMappingURL=.*\*/@@' "$nm/$1" >"$out/$2"
}
copy react/umd/react.production.min.js react.production.min.js
copy react-dom/umd/react-dom.production.min.js react-dom.production.min.js
copy graphiql/graphiql.min.js graphiql.min.js
copy graphiql/graphiql.min.css graphiql.min.css
copy @graphiql/plugin-explorer/dist/index.umd.js plugin-explorer.umd.js
copy @graphiql/plugin-explorer/dist/style.css plugin-explorer.css
copy graphql-ws/umd/graphql-ws.min.js graphql-ws.min.js
{
  for p in react react-dom graphiql @graphiql/plugin-explorer graphql-ws; do
    v=$(node -p "require('./$nm/$p/package.json').version")
    printf '==== %s %s ====\n\n' "$p" "$v"
    cat "$nm/$p"/LICENSE* 2>/dev/null || echo "(see https://www.npmjs.com/package/$p)"
    printf '\n'
  done
} >"$out/THIRD_PARTY_LICENSES.txt"
node -e '
const l = require("./package-lock.json").packages, v = p => l["node_modules/" + p].version;
const o = {}; for (const p of ["react","react-dom","graphiql","@graphiql/plugin-explorer","graphql-ws"]) o[p] = v(p);
require("fs").writeFileSync(process.argv[1], JSON.stringify(o, null, 2) + "\n");' "$out/versions.json"
ls -l "$out"
