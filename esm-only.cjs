'use strict';
// What require() of any rxmcp entry point loads (package.json "exports", the
// "require" condition): rxmcp is published as ES modules only. Its typings,
// dist/esm-only/*.d.cts (scripts/esm-only-types.mjs), make tsc refuse the
// same require at compile time.
const error = new Error(
  "rxmcp is an ES module only package: it cannot be loaded with require(). " +
    "Use `import { createServer } from 'rxmcp'` in an ES module (a .mjs file, or \"type\": \"module\" in your package.json), " +
    "or `const { createServer } = await import('rxmcp')` from CommonJS.",
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
