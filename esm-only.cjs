'use strict';
// What require('rxmcp'), require('rxmcp/transports') and require('rxmcp/testing') load (package.json
// "exports", the "require" condition): rxmcp is published as ES modules only.
const error = new Error(
  "rxmcp is an ES module only package: it cannot be loaded with require(). " +
    "Use `import { createServer } from 'rxmcp'` in an ES module (a .mjs file, or \"type\": \"module\" in your package.json), " +
    "or `const { createServer } = await import('rxmcp')` from CommonJS.",
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
