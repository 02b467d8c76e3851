#!/usr/bin/env bash
# Runs every `func FuzzXxx` target of the module for FUZZTIME each (default
# 10s), one after another with FUZZPARALLEL workers (default 1, to stay
# gentle on a shared machine). A failing input is written by `go test` to the
# package's testdata/fuzz/<target>/ directory: commit it with the fix.
set -euo pipefail
cd "$(dirname "$0")/../.."
FUZZTIME=${FUZZTIME:-10s}
FUZZPARALLEL=${FUZZPARALLEL:-1}
GO=${GO:-go}

targets=$(grep -rlE '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' --include='*_test.go' . |
  while read -r file; do
    dir=$(dirname "$file")
    grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed "s|^func |$dir |"
  done | sort)

failed=0
start=$(date +%s)
while read -r dir target; do
  [ -n "$target" ] || continue
  printf '%-14s %-22s ' "$dir" "$target"
  if out=$($GO test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZPARALLEL" "$dir" 2>&1); then
    echo "ok   $(grep -oE 'execs: [0-9]+' <<<"$out" | tail -1)"
  else
    echo "FAIL"; echo "$out" | tail -30; failed=1
  fi
done <<<"$targets"
echo "fuzz: $(wc -l <<<"$targets") targets, ${FUZZTIME} each, $(( $(date +%s) - start ))s"
exit $failed
