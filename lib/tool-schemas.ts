/**
 * A tool's schemas, prepared once when the tool is registered: `inputSchema`
 * checks the call's arguments before the handler runs, `outputSchema` checks
 * the `structuredContent` it returns. A raw JSON Schema is compiled with ajv
 * (JSON Schema 2020-12 unless its `$schema` names draft-07; a maintained,
 * spec-complete validator, where hand-written checks would drift) and listed
 * untouched. A Standard Schema (zod, valibot, arktype) validates with its own
 * `validate` (which may answer later, and whose output value is what the
 * handler gets) and is listed as the JSON Schema its library converts it to.
 * Either must have `type: "object"` at its root: clients refuse a tools/list
 * holding anything else, so registration refuses it first. A raw schema is
 * checked against its draft's meta-schema before it is compiled: in the
 * package's bundle by validators made at build time (meta-schema-validators.ts).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ConfigError } from './errors.js';
import { PRECOMPILED_META_VALIDATORS } from './meta-schema-validators.js';
import { describeIssues, isStandardSchema, type StandardResult, type StandardSchemaV1 } from './standard-schema.js';
import type { ToolDef, ToolJsonSchemas } from './tool-def.js';

type AjvInstance = Ajv | Ajv2020;

const addFormats = addFormatsModule as unknown as (ajv: AjvInstance) => AjvInstance;

/** `null`: valid, use the value as it is; a string: what is wrong; `{ value }`: valid, use this value instead. */
export type CheckOutcome = null | string | { readonly value: unknown };

export type SchemaCheck = (value: unknown) => CheckOutcome | PromiseLike<CheckOutcome>;

export interface ToolSchemas {
  readonly json: ToolJsonSchemas;
  readonly checkInput: SchemaCheck | null;
  readonly checkOutput: SchemaCheck | null;
}

/** Turns a Standard Schema into JSON Schema, for a library that cannot do it itself. */
export type JsonSchemaConverter = (schema: StandardSchemaV1, io: 'input' | 'output') => Record<string, unknown>;

type Field = 'inputSchema' | 'outputSchema';

interface Prepared {
  readonly json: Record<string, unknown>;
  readonly check: SchemaCheck;
}

function isDraft07(schema: Record<string, unknown>): boolean {
  return typeof schema.$schema === 'string' && schema.$schema.includes('draft-07');
}

/** The `$id` of each meta-schema, as ajv keys it (no trailing `#`). */
const DRAFT_2020_META = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07_META = 'http://json-schema.org/draft-07/schema';

/**
 * The build's validator for the meta-schema ajv would check this schema
 * against, or undefined where there is none: no precompiled validators (the
 * source), or a `$schema` naming another meta-schema, which ajv resolves
 * (and refuses when it does not know it).
 */
function precompiledMetaCheck(schema: Record<string, unknown>): ValidateFunction | undefined {
  // A `$schema` that is not a string gets ajv's own words for it.
  if (PRECOMPILED_META_VALIDATORS === null || (schema.$schema !== undefined && typeof schema.$schema !== 'string')) return undefined;
  const named = typeof schema.$schema === 'string' ? schema.$schema.replace(/#$/, '') : undefined;
  if (isDraft07(schema)) return named === DRAFT_07_META ? PRECOMPILED_META_VALIDATORS.draft07 : undefined;
  return named === undefined || named === DRAFT_2020_META ? PRECOMPILED_META_VALIDATORS.draft2020 : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const OBJECT_OF: Record<string, string> = { zod: 'z.object({ value: schema })', valibot: 'v.object({ value: schema })', arktype: 'type({ value: schema })' };

function requireObjectRoot(tool: string, field: Field, json: unknown, vendor: string | null): void {
  if (isPlainObject(json) && json.type === 'object') return;
  const got = isPlainObject(json) ? (json.type === undefined ? 'no type' : `type: ${JSON.stringify(json.type)}`) : `a ${json === null ? 'null' : Array.isArray(json) ? 'array' : typeof json}`;
  let fix: string;
  if (vendor !== null) fix = `wrap it in an object schema, e.g. ${OBJECT_OF[vendor] ?? `your ${vendor} object schema with one property`}`;
  else if (isPlainObject(json) && json.type === undefined && isPlainObject(json.properties)) fix = 'add type: "object" beside its properties';
  else fix = 'wrap it: { type: "object", properties: { value: <your schema> }, required: ["value"] }';
  throw new ConfigError(
    field,
    `${field} of tool "${tool}" must have type: "object" at its root (got ${got}): MCP clients refuse the whole tools/list otherwise; ${fix}`,
  );
}

function standardCheck(schema: StandardSchemaV1, dataVar: string): SchemaCheck {
  const read = (result: StandardResult<unknown>): CheckOutcome =>
    result.issues === undefined ? result : result.issues.length === 0 ? `${dataVar} is invalid` : describeIssues(result.issues, dataVar);
  return (value) => {
    const result = schema['~standard'].validate(value);
    return typeof (result as PromiseLike<unknown>).then === 'function' ? (result as PromiseLike<StandardResult<unknown>>).then(read) : read(result as StandardResult<unknown>);
  };
}

function noConverter(vendor: string): string {
  if (vendor === 'valibot') return 'wrap it with toStandardJsonSchema() from @valibot/to-json-schema';
  if (vendor === 'zod') return 'use zod 4.2 or newer, or pass new Registry({ toJsonSchema: (schema, io) => ... })';
  return 'pass new Registry({ toJsonSchema: (schema, io) => ... }) with its library\'s converter';
}

/**
 * Throws as ajv's compile does on a schema its meta-schema refuses ("schema
 * is invalid: data/required must be array", every error named): through
 * the build's validator when there is one, else through ajv, which compiles
 * the meta-schema the first time.
 */
function checkAgainstMeta(ajv: AjvInstance, body: Record<string, unknown>): void {
  const precompiled = precompiledMetaCheck(body);
  if (precompiled === undefined) {
    ajv.validateSchema(body, true);
    return;
  }
  if (!precompiled(body)) throw new Error(`schema is invalid: ${ajv.errorsText(precompiled.errors)}`);
}

/** One per registry, so two servers never share compiled state. */
export class SchemaCompiler {
  private draft2020: Ajv2020 | undefined;
  private draft07: Ajv | undefined;

  constructor(private readonly converter: JsonSchemaConverter | null = null) {}

  compileTool(def: ToolDef): ToolSchemas {
    const input = this.prepare(def.name, 'inputSchema', def.inputSchema);
    const output = this.prepare(def.name, 'outputSchema', def.outputSchema);
    return { json: { input: input?.json, output: output?.json }, checkInput: input?.check ?? null, checkOutput: output?.check ?? null };
  }

  private prepare(tool: string, field: Field, schema: unknown): Prepared | undefined {
    if (schema === undefined) return undefined;
    const dataVar = field === 'inputSchema' ? 'arguments' : 'structuredContent';
    if (isStandardSchema(schema)) {
      const json = this.convert(tool, field, schema);
      requireObjectRoot(tool, field, json, schema['~standard'].vendor);
      return { json, check: standardCheck(schema, dataVar) };
    }
    requireObjectRoot(tool, field, schema, null);
    const json = schema as Record<string, unknown>;
    return { json, check: this.compile(tool, field, json, dataVar) };
  }

  private convert(tool: string, field: Field, schema: StandardSchemaV1): Record<string, unknown> {
    const props = schema['~standard'];
    const io = field === 'inputSchema' ? 'input' : 'output';
    // arktype before Standard JSON Schema had the converter on the type itself.
    const own = (schema as { toJsonSchema?: unknown }).toJsonSchema;
    let json: unknown;
    try {
      if (this.converter !== null) json = this.converter(schema, io);
      else if (props.jsonSchema !== undefined) json = props.jsonSchema[io]({ target: 'draft-2020-12' });
      else if (typeof own === 'function') json = own.call(schema);
      else throw new ConfigError(field, `${field} of tool "${tool}" is a ${props.vendor} schema that cannot convert itself to JSON Schema: ${noConverter(props.vendor)}`);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(field, `${field} of tool "${tool}" (a ${props.vendor} schema) could not be converted to JSON Schema: ${(error as Error)?.message ?? String(error)}`);
    }
    // A plain copy: what the library hands back may carry non-JSON extras (zod's has its own `~standard`).
    return isPlainObject(json) ? (JSON.parse(JSON.stringify(json)) as Record<string, unknown>) : (json as Record<string, unknown>);
  }

  private instance(schema: Record<string, unknown>): AjvInstance {
    // The schema is checked against its meta-schema before it is compiled (checkAgainstMeta), not by compile.
    const options = { strict: false, allErrors: true, logger: false as const, validateSchema: false };
    if (isDraft07(schema)) return (this.draft07 ??= addFormats(new Ajv(options)) as Ajv);
    return (this.draft2020 ??= addFormats(new Ajv2020(options)) as Ajv2020);
  }

  private compile(tool: string, field: Field, schema: Record<string, unknown>, dataVar: string): SchemaCheck {
    const ajv = this.instance(schema);
    let validate: ValidateFunction;
    try {
      // Compiled without its $id so two tools may reuse one; the original stays untouched for tools/list.
      const { $id: _id, ...body } = schema;
      checkAgainstMeta(ajv, body);
      validate = ajv.compile(body);
    } catch (error) {
      throw new TypeError(`tool ${tool} has an invalid ${field}: ${(error as Error).message}`);
    }
    return (value) => (validate(value) ? null : ajv.errorsText(validate.errors, { dataVar }));
  }
}
