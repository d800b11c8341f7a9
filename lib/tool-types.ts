/**
 * What the compiler knows about a tool from its schemas: the handler's
 * arguments are what the inputSchema accepts, and its result is what the
 * outputSchema describes, whether the schema is a Standard Schema (zod,
 * valibot, arktype) or a raw JSON Schema literal (inferred by
 * json-schema-to-ts). A schema the compiler cannot read (a
 * `Record<string, unknown>`, a widened variable) leaves the handler untyped:
 * `Record<string, unknown>` in, anything out, as before.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Observable } from 'rxjs';
import type { ProgressUpdate } from './progress.js';
import type { InferSchemaInput, InferSchemaOutput, StandardSchemaV1 } from './standard-schema.js';

/**
 * A raw JSON Schema object, or a Standard Schema of an object (so `z.string()`
 * is refused by the compiler; a JSON Schema's root is checked at registration).
 */
export type ToolSchema = Record<string, unknown> | StandardSchemaV1<unknown, Record<string, unknown>>;

type Untyped = Record<string, unknown>;

/** A JSON Schema the compiler can read: a literal (`as const`, or written inline), not a `Record` or a widened variable. */
type ReadableJsonSchema<S> = [S] extends [JSONSchema] ? (string extends keyof S ? false : true) : false;

// A conditional, not an intersection: FromSchema<S & JSONSchema> loses the property types.
type FromJson<S> = S extends JSONSchema ? FromSchema<S> : never;

type ObjectOr<T, Fallback> = [T] extends [Record<string, unknown>] ? T : Fallback;

/** The handler's arguments for an inputSchema: what its validation hands over. */
export type ToolArgs<S> = [S] extends [undefined]
  ? Untyped
  : [S] extends [StandardSchemaV1]
    ? ObjectOr<InferSchemaOutput<S>, Untyped>
    : ReadableJsonSchema<S> extends true
      ? ObjectOr<FromJson<S>, Untyped>
      : Untyped;

/** The structured result an outputSchema describes; `unknown` when there is none the compiler can read. */
export type ToolStructured<S> = [S] extends [undefined]
  ? unknown
  : [S] extends [StandardSchemaV1]
    ? InferSchemaInput<S>
    : ReadableJsonSchema<S> extends true
      ? FromJson<S>
      : unknown;

/** A CallToolResult whose structuredContent is typed. */
export interface StructuredToolResult<T> {
  content: readonly unknown[];
  structuredContent: T;
  isError?: false;
  _meta?: Record<string, unknown>;
}

/** A CallToolResult reporting failure: no structuredContent needed. */
export interface FailedToolResult {
  content: readonly unknown[];
  isError: true;
  _meta?: Record<string, unknown>;
}

/**
 * What a handler of a tool with a typed outputSchema may answer: the
 * structured value itself (sent as structuredContent, with its JSON as text),
 * a CallToolResult carrying it, or a failure.
 */
export type TypedToolOutcome<T> = unknown extends T ? unknown : T | StructuredToolResult<T> | FailedToolResult;

/** T with every object and array readonly: what a `const` inference of a returned literal is checked against. */
export type Frozen<T> = T extends (...args: never[]) => unknown ? T : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/**
 * The constraint on a handler's inferred result. The result is inferred (as
 * a `const` type parameter, so `'ok'` stays `'ok'`) and then checked against
 * this, rather than typed by it: a literal returned inside a function in the
 * same object as the schema would otherwise widen (`'ok'` to `string`) before
 * the schema's type is known.
 */
export type ToolResultOf<O> = Frozen<TypedToolOutcome<ToolStructured<O>>>;

/** A value, a Promise of it, or an Observable whose last value it is (progress updates may come first). */
export type ToolReturn<R> = R | PromiseLike<R> | Observable<R | ProgressUpdate>;
