// An esbuild plugin for scripts/bundle.mjs: replaces lib/meta-schema-validators.js
// (no validators: ajv compiles a meta-schema when the first tool needs it) with
// the validators ajv generates now, at build time, for the JSON Schema 2020-12
// and draft-07 meta-schemas, from instances made with the options
// lib/tool-schemas.ts gives its own (strict off, all errors, formats added).
// The generated code is the function ajv would compile at run time, written
// out (ajv's "standalone" code), so a bundled server refuses the same schemas
// with the same words and skips 30 to 60 ms of its start.
// test/package/meta-schema-validators.test.ts holds the two to each other.
import { Ajv, _ } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule.default ?? addFormatsModule;
const standalone = standaloneCode.default ?? standaloneCode;

/** The options of lib/tool-schemas.ts's instances, and ajv's to write the code out as an ES module. */
const OPTIONS = {
  strict: false,
  allErrors: true,
  logger: false,
  code: { source: true, esm: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
};

const METAS = {
  draft2020: () => [addFormats(new Ajv2020(OPTIONS)), 'https://json-schema.org/draft/2020-12/schema'],
  draft07: () => [addFormats(new Ajv(OPTIONS)), 'http://json-schema.org/draft-07/schema'],
};

/**
 * One meta-schema's validator as an ES module. ajv's ES output still reaches
 * its run-time helpers (`equal`) with `require("ajv/dist/runtime/<name>").default`;
 * each becomes an import of that CommonJS file. Node hands an ES import of it
 * its module.exports (the helper is `.default`), a bundler that honours
 * `__esModule` hands the helper itself: the pick below takes either.
 */
export function metaValidatorModule(name) {
  const [ajv, id] = METAS[name]();
  const validate = ajv.getSchema(id);
  if (validate === undefined) throw new Error(`ajv has no meta-schema ${id}`);
  const imports = [];
  const code = standalone(ajv, validate).replace(/require\("([^"]+)"\)\.default/g, (_match, specifier) => {
    const local = `__runtime${imports.length}`;
    imports.push(
      `import * as ${local}Module from ${JSON.stringify(`${specifier}.js`)};`,
      `const ${local} = typeof ${local}Module.default === 'function' ? ${local}Module.default : ${local}Module.default.default;`,
    );
    return local;
  });
  if (/\brequire\(/.test(code)) throw new Error(`the ${name} validator still calls require() in a form this script does not rewrite`);
  return `${imports.join('\n')}\n${code}`;
}

const PLACEHOLDER = /[\\/]lib[\\/]meta-schema-validators\.js$/;

export function metaSchemaValidatorsPlugin(resolveDir) {
  return {
    name: 'rxmcp-meta-schema-validators',
    setup(build) {
      build.onLoad({ filter: PLACEHOLDER }, () => ({
        contents: [
          "import draft2020 from 'rxmcp-meta-schema:draft2020';",
          "import draft07 from 'rxmcp-meta-schema:draft07';",
          'export const PRECOMPILED_META_VALIDATORS = { draft2020, draft07 };',
        ].join('\n'),
        loader: 'js',
        resolveDir,
      }));
      build.onResolve({ filter: /^rxmcp-meta-schema:/ }, (args) => ({ path: args.path.slice('rxmcp-meta-schema:'.length), namespace: 'rxmcp-meta-schema' }));
      build.onLoad({ filter: /.*/, namespace: 'rxmcp-meta-schema' }, (args) => ({ contents: metaValidatorModule(args.path), loader: 'js', resolveDir }));
    },
  };
}
