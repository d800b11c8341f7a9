#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in conformance/package.json) against the everything fixture served
# over Streamable HTTP on 127.0.0.1, three times against one fixture process:
#
#   0.1.16-all           0.1.16 --suite all
#   0.2-all              0.2.0-alpha.12 --suite all
#   0.2-req-2026-07-28   0.2.0-alpha.12 --requirements 2026-07-28
#
# and fails on any surprise: a scenario failing that
# conformance/expected-failures.txt does not list for that run, a listed one
# that passes (so the list is kept honest), or a listed one the run lacks.
#
# - Installs conformance/ (npm ci) when a pinned package is missing or at
#   another version, and builds dist/ when the fixture is not built. The
#   suite needs Node 22, which comes from conformance/node_modules/node; the
#   project itself stays on Node 20.
# - The fixture listens on port 0; its first stdout line names the URL.
# - Prints one summary line per run (scripts/conformance-verdict.mjs):
#   "conformance RUN: P passed, F failed (W warnings); ..." and the surprises.
#   Exit status: 0 when no run had a surprise, 1 otherwise.
# Environment: CONFORMANCE_RUNS (space-separated run names, default all
# three), CONFORMANCE_KEEP (keep the results directory and print its path),
# CONFORMANCE_VERBOSE (print every run's full suite output).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

runs="${CONFORMANCE_RUNS:-0.1.16-all 0.2-all 0.2-req-2026-07-28}"
node22_bin="$root/conformance/node_modules/node/bin"
suite_v1="$root/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
suite_v2="$root/conformance/node_modules/conformance-0.2/dist/index.js"
expected="$root/conformance/expected-failures.txt"
fixture="$root/dist/examples/everything/main.js"

# Every dependency of conformance/package.json installed at its pinned version (an alias pins "npm:name@version").
installed_as_pinned() {
  node -e '
    const fs = require("node:fs");
    const deps = JSON.parse(fs.readFileSync("conformance/package.json", "utf8")).dependencies;
    for (const [name, spec] of Object.entries(deps)) {
      const file = `conformance/node_modules/${name}/package.json`;
      const want = spec.startsWith("npm:") ? spec.slice(spec.lastIndexOf("@") + 1) : spec;
      if (!fs.existsSync(file) || JSON.parse(fs.readFileSync(file, "utf8")).version !== want) process.exit(1);
    }
  '
}
if ! installed_as_pinned; then
  npm ci --prefix conformance --no-audit --no-fund >&2
fi
if [[ "$("$node22_bin/node" --version)" != v22.* ]]; then
  echo "conformance: conformance/node_modules/node is not Node 22" >&2
  exit 1
fi
if [[ ! -f "$fixture" ]]; then
  npm run build --silent >&2 || { echo "conformance: the build failed" >&2; exit 1; }
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -n "${CONFORMANCE_KEEP:-}" ]]; then
    echo "conformance: results kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

NODE_ENV=production node "$fixture" --port 0 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!

# The fixture prints "... listening on http://127.0.0.1:PORT/mcp" once it listens.
url=""
for _ in $(seq 1 100); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/server.out" 2>/dev/null | head -n 1 || true)"
  [[ -n "$url" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "conformance: the fixture did not start" >&2
  cat "$work/server.err" >&2
  exit 1
fi
health="${url%/mcp}/health"
healthy=""
for _ in $(seq 1 50); do
  if node -e "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$health"; then
    healthy=yes
    break
  fi
  sleep 0.1
done
if [[ -z "$healthy" ]]; then
  echo "conformance: $health never answered 200" >&2
  cat "$work/server.err" >&2
  exit 1
fi

# run_suite NAME SUITE_BIN ARGS...: one run of the suite, judged by the verdict script.
run_suite() {
  local name="$1" bin="$2"
  shift 2
  local out="$work/$name.out" results="$work/$name"
  local status=0
  PATH="$node22_bin:$PATH" timeout 900 node "$bin" server --url "$url" "$@" -o "$results" >"$out" 2>&1 || status=$?
  [[ -n "${CONFORMANCE_VERBOSE:-}" ]] && cat "$out"
  if ! node scripts/conformance-verdict.mjs "$name" "$out" "$results" "$expected"; then
    [[ -z "${CONFORMANCE_VERBOSE:-}" ]] && sed -n '/=== SUMMARY ===/,$p' "$out"
    echo "conformance $name: suite exit $status"
    return 1
  fi
}

failed_runs=0
for run in $runs; do
  case "$run" in
    0.1.16-all) run_suite "$run" "$suite_v1" --suite all || failed_runs=$((failed_runs + 1)) ;;
    0.2-all) run_suite "$run" "$suite_v2" --suite all || failed_runs=$((failed_runs + 1)) ;;
    0.2-req-2026-07-28) run_suite "$run" "$suite_v2" --requirements 2026-07-28 || failed_runs=$((failed_runs + 1)) ;;
    *) echo "conformance: unknown run $run (CONFORMANCE_RUNS)" >&2; exit 2 ;;
  esac
done
[[ "$failed_runs" -eq 0 ]]
