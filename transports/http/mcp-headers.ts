/**
 * The standard and custom MCP request headers of the modern era (SEP-2243)
 * checked against the body they mirror. Each check answers `null` (fine) or
 * the detail of a -32020 (the caller makes it a 400):
 *
 * - `Mcp-Method` must be present and equal the body's `method`;
 * - `Mcp-Name` must be present, and equal `params.name` (tools/call,
 *   prompts/get), `params.uri` (resources/read) or `params.taskId` (tasks/*),
 *   when the method has such a field;
 * - `Mcp-Param-<Name>` must be present and equal the argument, for each tool
 *   input property marked `"x-mcp-header": "<Name>"` whose argument is
 *   present and not null (integers compare numerically, booleans as
 *   `true`/`false`).
 *
 * Values may come as `=?base64?<base64 of UTF-8>?=`; the decoding is strict
 * (alphabet, padding, UTF-8), and a value without both markers is literal.
 * Header names compare case-insensitively (node lower-cases them), values
 * case-sensitively after trimming the optional whitespace around them.
 */
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import { headerOf, type RequestHead } from './exchange.js';

const B64_PREFIX = '=?base64?';
const B64_SUFFIX = '?=';
const B64_ALPHABET = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body field `Mcp-Name` mirrors, by method. */
const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header's value as the client meant it: trimmed, Base64 decoded when marked; null when the encoding is broken. */
function decodeHeaderValue(raw: string): string | null {
  const value = raw.trim();
  if (!value.startsWith(B64_PREFIX) || !value.endsWith(B64_SUFFIX) || value.length < B64_PREFIX.length + B64_SUFFIX.length) return value;
  const encoded = value.slice(B64_PREFIX.length, value.length - B64_SUFFIX.length);
  if (!B64_ALPHABET.test(encoded)) return null;
  try {
    return STRICT_UTF8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return null;
  }
}

/** A header's decoded value, `undefined` when absent, `null` when badly encoded. */
function readHeader(req: RequestHead, name: string): string | null | undefined {
  const raw = headerOf(req, name);
  return raw === undefined ? undefined : decodeHeaderValue(raw);
}

export function checkStandardHeaders(req: RequestHead, method: string, params: Record<string, unknown> | undefined): string | null {
  const mcpMethod = headerOf(req, 'mcp-method');
  if (mcpMethod === undefined) return 'the Mcp-Method header is required';
  if (mcpMethod.trim() !== method) return `Mcp-Method ${JSON.stringify(mcpMethod.trim())} does not match the body's method ${JSON.stringify(method)}`;
  const field = NAME_FIELD[method];
  const expected = field === undefined ? undefined : params?.[field];
  if (typeof expected !== 'string') return null;
  const name = readHeader(req, 'mcp-name');
  if (name === undefined) return `the Mcp-Name header is required for ${method}`;
  if (name === null) return 'Mcp-Name is not valid =?base64?...?= encoding';
  if (name !== expected) return `Mcp-Name does not match the body's params.${field}`;
  return null;
}

/** The `x-mcp-header` marks of an input schema: header name → path of property names. */
function headerMarks(schema: unknown): Map<string, readonly string[]> {
  const marks = new Map<string, readonly string[]>();
  const visit = (node: unknown, path: readonly string[], depth: number): void => {
    if (!isPlainObject(node) || !isPlainObject(node.properties) || depth > 16) return;
    for (const [key, property] of Object.entries(node.properties)) {
      if (!isPlainObject(property)) continue;
      const mark = property['x-mcp-header'];
      if (typeof mark === 'string') marks.set(mark.toLowerCase(), [...path, key]);
      visit(property, [...path, key], depth + 1);
    }
  };
  visit(schema, [], 0);
  return marks;
}

/**
 * headerMarks once per schema object: a tool's input schema is fixed when it
 * is registered (its validator is compiled then, too), and the walk would
 * otherwise run on every tools/call.
 */
const marksBySchema = new WeakMap<object, ReadonlyMap<string, readonly string[]>>();

function cachedHeaderMarks(schema: unknown): ReadonlyMap<string, readonly string[]> {
  if (typeof schema !== 'object' || schema === null) return headerMarks(schema);
  let marks = marksBySchema.get(schema);
  if (marks === undefined) {
    marks = headerMarks(schema);
    marksBySchema.set(schema, marks);
  }
  return marks;
}

function argumentAt(args: unknown, path: readonly string[]): unknown {
  let at = args;
  for (const key of path) {
    if (!isPlainObject(at)) return undefined;
    at = at[key];
  }
  return at;
}

function sameValue(header: string, argument: unknown): boolean {
  if (typeof argument === 'string') return header === argument;
  if (typeof argument === 'boolean') return header === String(argument);
  if (typeof argument === 'number') return header !== '' && Number(header) === argument;
  return false;
}

/** The `Mcp-Param-*` headers of a tools/call against its arguments, by the tool's input schema. */
export function checkParamHeaders(req: RequestHead, inputSchema: unknown, args: unknown): string | null {
  for (const [name, path] of cachedHeaderMarks(inputSchema)) {
    const argument = argumentAt(args, path);
    if (argument === undefined || argument === null) continue;
    const value = readHeader(req, `mcp-param-${name}`);
    if (value === undefined) return `the Mcp-Param-${name} header is required (argument ${path.join('.')})`;
    if (value === null) return `Mcp-Param-${name} is not valid =?base64?...?= encoding`;
    if (!sameValue(value, argument)) return `Mcp-Param-${name} does not match argument ${path.join('.')}`;
  }
  return null;
}
