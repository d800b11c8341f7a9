/**
 * A tool's JSON Schemas, compiled once when the tool is registered:
 * `inputSchema` checks the call's arguments before the handler runs,
 * `outputSchema` checks the `structuredContent` it returns. JSON Schema
 * 2020-12 unless the schema's `$schema` names draft-07. Validation is ajv's
 * (a maintained, spec-complete validator; hand-written checks would drift).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ToolDef } from './tool-def.js';

type AjvInstance = Ajv | Ajv2020;

const addFormats = addFormatsModule as unknown as (ajv: AjvInstance) => AjvInstance;

export type SchemaCheck = (value: unknown) => string | null;

export interface ToolSchemas {
  readonly checkInput: SchemaCheck | null;
  readonly checkOutput: SchemaCheck | null;
}

function isDraft07(schema: Record<string, unknown>): boolean {
  return typeof schema.$schema === 'string' && schema.$schema.includes('draft-07');
}

/** One per registry, so two servers never share compiled state. */
export class SchemaCompiler {
  private draft2020: Ajv2020 | undefined;
  private draft07: Ajv | undefined;

  compileTool(def: ToolDef): ToolSchemas {
    return {
      checkInput: def.inputSchema === undefined ? null : this.compile(def.name, 'inputSchema', def.inputSchema),
      checkOutput: def.outputSchema === undefined ? null : this.compile(def.name, 'outputSchema', def.outputSchema),
    };
  }

  private instance(schema: Record<string, unknown>): AjvInstance {
    const options = { strict: false, allErrors: true, logger: false as const };
    if (isDraft07(schema)) return (this.draft07 ??= addFormats(new Ajv(options)) as Ajv);
    return (this.draft2020 ??= addFormats(new Ajv2020(options)) as Ajv2020);
  }

  private compile(tool: string, field: string, schema: Record<string, unknown>): SchemaCheck {
    const ajv = this.instance(schema);
    let validate: ValidateFunction;
    try {
      // Compiled without its $id so two tools may reuse one; the original stays untouched for tools/list.
      const { $id: _id, ...body } = schema;
      validate = ajv.compile(body);
    } catch (error) {
      throw new TypeError(`tool ${tool} has an invalid ${field}: ${(error as Error).message}`);
    }
    return (value) => (validate(value) ? null : ajv.errorsText(validate.errors, { dataVar: field === 'inputSchema' ? 'arguments' : 'structuredContent' }));
  }
}
