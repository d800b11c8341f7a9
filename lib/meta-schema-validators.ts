/**
 * The checks of a tool's JSON Schema against its draft's meta-schema, made
 * before the server runs. Here, in the source and in the modules tsc writes,
 * there are none: ajv compiles the meta-schema when the first tool with a
 * JSON Schema is registered, which costs 30 to 60 ms of a server's start.
 * The package's bundle (scripts/bundle.mjs, scripts/meta-schema-validators.mjs)
 * replaces this module with the validators ajv generates at build time from
 * the same meta-schemas with the same options (its standalone code: the
 * function ajv would compile, written out), so what a user's server refuses
 * and the words it refuses it with are the same either way
 * (test/package/meta-schema-validators.test.ts).
 */
import type { ValidateFunction } from 'ajv';

export interface MetaSchemaValidators {
  /** JSON Schema 2020-12, the default dialect (`Ajv2020`). */
  readonly draft2020: ValidateFunction;
  /** Draft-07, for a schema whose `$schema` names it (`Ajv`). */
  readonly draft07: ValidateFunction;
}

export const PRECOMPILED_META_VALIDATORS: MetaSchemaValidators | null = null;
