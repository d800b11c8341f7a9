/**
 * Standard Schema (version 1), the interface zod 4, valibot and arktype all
 * put on their schemas under `~standard`, declared here so the library needs
 * none of them. Only what rxmcp uses: `validate` (its result may be a
 * Promise), the inferred `types`, and the optional Standard JSON Schema
 * converter (`jsonSchema.input/output`), through which each library converts
 * its own schemas (zod 4.2+ and arktype natively; valibot through
 * `toStandardJsonSchema` from `@valibot/to-json-schema`).
 */

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** A Standard Schema validation result: the value, or the issues. */
export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

/** A Standard Schema's own JSON Schema conversion (`~standard.jsonSchema`). */
export interface StandardJsonSchemaConverter {
  /** The JSON Schema of what the validator accepts. */
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  /** The JSON Schema of what the validator produces. */
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/** The `~standard` properties of a Standard Schema validator. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  /** Validates a value: the (possibly transformed) value, or the issues. */
  readonly validate: (value: unknown, options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  readonly jsonSchema?: StandardJsonSchemaConverter;
}

/** A schema of any Standard Schema library: a zod 4 schema, a valibot schema, an arktype type. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** What the schema accepts. */
export type InferSchemaInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
/** What a successful `validate` hands back (after the library's defaults and transforms). */
export type InferSchemaOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  // arktype's types are functions, so a function is as good as an object here.
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as Partial<StandardSchemaV1>)['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}

/** One issue as ajv would word it: `arguments/a/0 must be ...`. */
export function describeIssues(issues: ReadonlyArray<StandardIssue>, dataVar: string): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment));
      return `${[dataVar, ...path].join('/')} ${issue.message}`;
    })
    .join(', ');
}
