// Bundles what a user of the package loads: every entry point of package.json
// "exports" (the `import` condition) and the `rxmcp` command ("bin"), from the
// modules tsc wrote under dist/ into dist/bundle/, with the code the entry
// points share split into common chunks, so each module of the library is
// loaded once whichever entry points a program imports, and `instanceof`
// holds across them. Dependencies stay imports of their own packages.
//
// Why: an ES module costs the loader a resolution, a read and a link of its
// own; the library is about 200 of them, a stdio server's start loaded them
// one by one (issue 22: a fresh server, bench scenario stdio-start). The
// modules under dist/ stay as tsc wrote them, for the repository's own
// programs (the demo, the bench, the conformance server) and for reading.
//
// The bundle also carries the JSON Schema meta-schemas' validators, generated
// here (scripts/meta-schema-validators.mjs) instead of compiled by ajv when a
// server registers its first tool.
//
// Run by `npm run build`, after tsc. No source maps (the tarball carries
// none): the bundle keeps every function's and class's name, and the typings
// under dist/ keep every doc comment.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { metaSchemaValidatorsPlugin } from './meta-schema-validators.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const BUNDLE = './dist/bundle/';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Every bundled path package.json names: the exports' `import` defaults and the bin. */
function bundledPaths() {
  const paths = [];
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.import?.default;
    if (file === undefined || file === './package.json') continue;
    if (!file.startsWith(BUNDLE)) throw new Error(`package.json exports["${entry}"] is ${file}, not under ${BUNDLE}: a user would load the unbundled modules`);
    paths.push(file);
  }
  for (const [name, file] of Object.entries(pkg.bin ?? {})) {
    if (!file.startsWith(BUNDLE)) throw new Error(`package.json bin["${name}"] is ${file}, not under ${BUNDLE}`);
    paths.push(file);
  }
  return paths;
}

/** dist/bundle/<path> is bundled from dist/<path>, the module tsc wrote. */
const sourceOf = (bundled) => join(DIST, bundled.slice(BUNDLE.length));

await build({
  entryPoints: bundledPaths().map(sourceOf),
  outbase: DIST,
  outdir: join(DIST, 'bundle'),
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // rxjs, ajv, pino, ws, jose and the optional peers stay the user's installed packages: one rxjs for the
  // library and the user's own Observables and schedulers (a TestScheduler patches the rxjs it imports).
  packages: 'external',
  legalComments: 'none',
  logLevel: 'warning',
  // The JSON Schema meta-schemas' validators, generated now instead of compiled at a server's start.
  plugins: [metaSchemaValidatorsPlugin(ROOT)],
});
