#!/usr/bin/env bash
# npm run test:rxjs9 — the core suites against another RxJS (default 9.0.0-beta.0).
#
#   npm run test:rxjs9                         # rxjs@9.0.0-beta.0, the core suites
#   RXJS_VERSION=7.8.2 npm run test:rxjs9      # control run: the harness itself on the pinned RxJS
#   npm run test:rxjs9 -- test/marbles         # other suites (vitest path filters)
#   KEEP_TMP=1 npm run test:rxjs9              # keep the temporary copy for inspection
#
# The repo's own node_modules, lock file and dist are never written. The script:
#  1. copies the repo's files (git ls-files: tracked and untracked-not-ignored,
#     so no node_modules, dist or .git) into a mktemp dir;
#  2. gives the copy a node_modules that is a symlink farm of the repo's, except
#     rxjs, which `npm install` puts there fresh, and every package that depends
#     on rxjs (rxjs-marbles), which is copied for real: Node resolves a symlinked
#     package from its real path, so a symlinked rxjs-marbles would silently load
#     the repo's rxjs 7;
#  3. prints the rxjs version as resolved from the copy's dist/lib, its tests and
#     rxjs-marbles, and a probe test asserts it inside vitest (so a wrong rxjs
#     fails the run rather than passing it);
#  4. builds with tsc (type errors are reported, not fatal: dist is emitted
#     anyway, so the tests show the runtime behaviour too), typechecks the tests,
#     then runs vitest on the core suites.
# Logs (tsc output, vitest output and JSON report) stay in $LOGS after the copy is removed.
# Exit status: non-zero if tsc or vitest failed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RXJS_VERSION=${RXJS_VERSION:-9.0.0-beta.0}
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(test/contract test/marbles test/era test/mrtr test/listen test/hostile test/streams test/middleware)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rxmcp-rxjs-${RXJS_VERSION}.XXXXXX")
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/rxmcp-rxjs-${RXJS_VERSION}-logs.XXXXXX")
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT
START=$(date +%s)
phase() { echo; echo "== [$(( $(date +%s) - START ))s] $*"; }

phase "copy of $ROOT in $TMP"
# (a node_modules or dist that is a symlink, as in a git worktree, is not ignored by "node_modules/")
git -C "$ROOT" ls-files -z --cached --others --exclude-standard | grep -zvE '^(node_modules|dist)(/|$)' \
  | tar -C "$ROOT" --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$TMP" -xf -

phase "node_modules: links to the repo's, rxjs@$RXJS_VERSION installed"
mkdir "$TMP/node_modules"
# The repo's packages that depend (or peer-depend) on rxjs: copied, not linked (see 2. above).
RXJS_USERS=$(cd "$ROOT/node_modules" && node -e '
  const fs = require("node:fs");
  const names = fs.readdirSync(".").flatMap((n) => n.startsWith("@") ? fs.readdirSync(n).map((m) => `${n}/${m}`) : [n]);
  for (const n of names) {
    try {
      const p = JSON.parse(fs.readFileSync(`${n}/package.json`, "utf8"));
      if ({ ...p.dependencies, ...p.peerDependencies, ...p.optionalDependencies }.rxjs) console.log(n);
    } catch {}
  }')
link_or_copy() { # $1: a name under node_modules ("pkg" or "@scope/pkg")
  if grep -qx -- "$1" <<<"$RXJS_USERS"; then cp -R "$ROOT/node_modules/$1" "$TMP/node_modules/$1"
  else ln -s "$ROOT/node_modules/$1" "$TMP/node_modules/$1"; fi
}
ln -s "$ROOT/node_modules/.bin" "$TMP/node_modules/.bin" # other dot entries (.vite caches, lock) stay out
for entry in "$ROOT"/node_modules/*; do
  name=${entry##*/}
  if [[ $name == @* ]]; then
    mkdir "$TMP/node_modules/$name"
    for scoped in "$entry"/*; do link_or_copy "$name/${scoped##*/}"; done
  elif [ "$name" != rxjs ]; then
    link_or_copy "$name"
  fi
done
# rxjs through npm into a side directory, then moved in: rxjs at the top, whatever
# it depends on (@rxjs/observable-polyfill for 9, tslib for 7) nested under it.
mkdir "$TMP/.rxjs" && echo '{"private":true}' >"$TMP/.rxjs/package.json"
npm install --loglevel=warn --prefix "$TMP/.rxjs" --no-save --no-package-lock --no-audit --no-fund "rxjs@$RXJS_VERSION" 2>&1 | sed 's/^/  npm: /'
mv "$TMP/.rxjs/node_modules/rxjs" "$TMP/node_modules/rxjs"
rm -f "$TMP/.rxjs/node_modules/.package-lock.json"
mv "$TMP/.rxjs/node_modules" "$TMP/node_modules/rxjs/node_modules" && rm -rf "$TMP/.rxjs"

phase "tsc -p tsconfig.json (the build) against rxjs@$RXJS_VERSION"
cd "$TMP"
status=0
node_modules/.bin/tsc -p tsconfig.json >"$LOGS/tsc-build.log" 2>&1 || { status=1; echo "  build: $(grep -c 'error TS' "$LOGS/tsc-build.log") type errors (dist emitted anyway), see $LOGS/tsc-build.log"; }
node_modules/.bin/tsc -p tsconfig.test.json >"$LOGS/tsc-tests.log" 2>&1 || { status=1; echo "  typecheck with tests: $(grep -c 'error TS' "$LOGS/tsc-tests.log") type errors, see $LOGS/tsc-tests.log"; }

phase "which rxjs the code under test resolves"
RXJS_USERS=$RXJS_USERS node --input-type=module -e '
  import { createRequire } from "node:module";
  import { realpathSync } from "node:fs";
  const users = process.env.RXJS_USERS.split("\n").filter(Boolean).map((n) => `node_modules/${n}/package.json`);
  for (const from of ["dist/lib/index.js", "test/contract/helpers.ts", ...users]) {
    const require = createRequire(realpathSync(from));
    const pkg = require.resolve("rxjs/package.json");
    console.log(`  from ${from}: rxjs ${require(pkg).version} (${pkg})`);
  }'
# The same question inside vitest, which resolves through vite: fails the run on a mismatch.
cat >test/rxjs-version.probe.test.ts <<EOF
import { expect, test } from 'vitest';
import pkg from 'rxjs/package.json' with { type: 'json' };
test('the tests resolve rxjs@$RXJS_VERSION', () => {
  expect(pkg.version).toBe('$RXJS_VERSION');
});
EOF

phase "vitest run ${SUITES[*]}"
set +e
node_modules/.bin/vitest run test/rxjs-version.probe.test.ts "${SUITES[@]}" \
  --reporter=default --reporter=json --outputFile.json="$LOGS/vitest.json" 2>&1 | tee "$LOGS/vitest.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
set -e

phase "failures by first error line (from $LOGS/vitest.json)"
node -e '
  const strip = (s) => String(s ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n")[0].slice(0, 160);
  const causes = new Map();
  const add = (cause, what) => causes.set(cause, [...(causes.get(cause) ?? []), what]);
  for (const file of require(process.argv[1]).testResults) {
    const name = file.name.slice(process.cwd().length + 1);
    if (file.assertionResults.length === 0 && file.status !== "passed") add(strip(file.message), `${name} (whole file)`);
    for (const t of file.assertionResults) if (t.status === "failed") add(strip(t.failureMessages[0]), `${name} > ${t.title}`);
  }
  for (const [cause, where] of [...causes].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${where.length}x ${cause}`);
    for (const w of where.slice(0, 3)) console.log(`      ${w}`);
    if (where.length > 3) console.log(`      ... and ${where.length - 3} more`);
  }' "$LOGS/vitest.json"

phase "done, status $status; logs in $LOGS${KEEP_TMP:+; copy kept in $TMP}"
exit $status
