#!/usr/bin/env bash
# `npm run bench` after the build: raise the open-file limit (the idle
# WebSocket scenario holds 10,000 sockets on each side; spawned servers and
# client helpers inherit it), then run the comparison from dist.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec node dist/bench/compare.js "$@"
