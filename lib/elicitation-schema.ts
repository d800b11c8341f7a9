/**
 * The restrictions MCP puts on a form elicitation's requestedSchema: a flat
 * object of primitive fields (string with an optional format, number,
 * integer, boolean, single- or multi-select enums). Checked before sending,
 * so a handler's mistake is its own error rather than a confused client.
 */
import { isPlainObject } from './protocol/jsonrpc.js';

const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isTitledOptions(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((o) => isPlainObject(o) && typeof o.const === 'string' && (o.title === undefined || typeof o.title === 'string'))
  );
}

function checkField(name: string, field: unknown): string | null {
  if (!isPlainObject(field)) return `property ${name} must be an object`;
  switch (field.type) {
    case 'string':
      if (field.enum !== undefined && !isStringList(field.enum)) return `property ${name}: enum must list strings`;
      if (field.oneOf !== undefined && !isTitledOptions(field.oneOf)) return `property ${name}: oneOf must list {const, title}`;
      if (field.format !== undefined && !STRING_FORMATS.has(field.format as string)) {
        return `property ${name}: format must be one of ${[...STRING_FORMATS].join(', ')}`;
      }
      return null;
    case 'number':
    case 'integer':
    case 'boolean':
      return null;
    case 'array': {
      const items = field.items;
      if (!isPlainObject(items)) return `property ${name}: a multi-select needs items`;
      const enumItems = items.type === 'string' && isStringList(items.enum);
      const titledItems = isTitledOptions(items.anyOf) || isTitledOptions(items.oneOf);
      return enumItems || titledItems ? null : `property ${name}: array items must be a string enum`;
    }
    default:
      return `property ${name}: type must be string, number, integer, boolean or an enum array (nested objects are not allowed)`;
  }
}

/** null when the schema may be sent, else what is wrong with it. */
export function checkRequestedSchema(schema: unknown): string | null {
  if (!isPlainObject(schema) || schema.type !== 'object') return 'requestedSchema must be {type: "object", properties}';
  if (!isPlainObject(schema.properties)) return 'requestedSchema.properties must be an object';
  for (const [name, field] of Object.entries(schema.properties)) {
    const problem = checkField(name, field);
    if (problem !== null) return problem;
  }
  if (schema.required !== undefined && !isStringList(schema.required)) return 'requestedSchema.required must list strings';
  return null;
}
