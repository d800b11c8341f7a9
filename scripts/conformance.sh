#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in conformance/package.json) against the everything fixture served
# over Streamable HTTP on 127.0.0.1, and fails unless every scenario passes.
#
# - Installs conformance/ (npm ci) when its node_modules is missing, and builds
#   dist/ when the fixture is not built. The suite needs Node 22, which comes
#   from conformance/node_modules/node; the project itself stays on Node 20.
# - The fixture listens on port 0; its first stdout line names the URL.
# - Prints one summary line: "conformance: P passed, F failed (W warnings)".
#   Exit status: 0 when every scenario passed, 1 otherwise.
# Environment: CONFORMANCE_SUITE (default "all"), CONFORMANCE_KEEP (keep the
# results directory and print its path).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

suite="${CONFORMANCE_SUITE:-all}"
node22_bin="$root/conformance/node_modules/node/bin"
suite_bin="$root/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
fixture="$root/dist/examples/everything/main.js"

if [[ ! -d conformance/node_modules ]]; then
  npm ci --prefix conformance --no-audit --no-fund >&2
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

set +e
PATH="$node22_bin:$PATH" node "$suite_bin" server --url "$url" --suite "$suite" -o "$work/results" >"$work/suite.out" 2>&1
suite_status=$?
set -e

# The suite's summary: one "✓ name: N passed, M failed" (or ✗) line per scenario.
summary="$(sed -n '/=== SUMMARY ===/,$p' "$work/suite.out")"
passed="$(grep -c '^✓ ' <<<"$summary" || true)"
failed="$(grep -c '^✗ ' <<<"$summary" || true)"
warnings="$(node -e '
  const fs = require("node:fs"), path = require("node:path");
  let n = 0;
  for (const dir of fs.existsSync(process.argv[1]) ? fs.readdirSync(process.argv[1]) : []) {
    const file = path.join(process.argv[1], dir, "checks.json");
    if (fs.existsSync(file)) n += JSON.parse(fs.readFileSync(file, "utf8")).filter((c) => c.status === "WARNING").length;
  }
  console.log(n);
' "$work/results")"

if [[ "$suite_status" -ne 0 || "$failed" -ne 0 || "$passed" -eq 0 ]]; then
  cat "$work/suite.out"
  echo "conformance: $passed passed, $failed failed ($warnings warnings; suite exit $suite_status)"
  exit 1
fi
echo "conformance: $passed passed, $failed failed ($warnings warnings)"
