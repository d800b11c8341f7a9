/**
 * A tool's `x-mcp-header` annotations (MCP 2026-07-28, SEP-2243), checked
 * at registration: a client drops a tool whose annotations are invalid, so
 * a bad one is the author's ConfigError, not a tool that silently vanishes.
 *
 * A mark is `"x-mcp-header": "<Name>"` on an input property reached from the
 * root through `properties` only (not inside items, anyOf, ...); its
 * property is a string, integer or boolean (not number); `<Name>` is a
 * non-empty HTTP token, unique among the tool's marks ignoring case.
 */
import { ConfigError } from './errors.js';
import { isPlainObject } from './protocol/jsonrpc.js';

const MARK = 'x-mcp-header';
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const PRIMITIVES = new Set(['string', 'integer', 'boolean']);
const MAX_DEPTH = 32;

function refuse(tool: string, problem: string): never {
  throw new ConfigError('inputSchema', `tool ${JSON.stringify(tool)}: ${problem}`);
}

/** Throws a ConfigError naming the tool when its input schema's `x-mcp-header` marks are invalid. */
export function checkHeaderMarks(tool: string, inputSchema: unknown): void {
  const seen = new Set<string>();
  const visit = (node: unknown, path: string, viaProperties: boolean, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${path}[${i}]`, false, depth + 1));
      return;
    }
    if (!isPlainObject(node)) return;
    if (Object.hasOwn(node, MARK)) {
      const name = node[MARK];
      if (!viaProperties || depth === 0) refuse(tool, `${MARK} at ${path} is not on a property reached through "properties" only`);
      if (typeof name !== 'string' || !TOKEN.test(name)) refuse(tool, `${MARK} at ${path} must be a non-empty header name token`);
      if (typeof node.type !== 'string' || !PRIMITIVES.has(node.type)) refuse(tool, `${MARK} at ${path} marks a property whose type is not string, integer or boolean`);
      const key = name.toLowerCase();
      if (seen.has(key)) refuse(tool, `${MARK} ${JSON.stringify(name)} is used twice`);
      seen.add(key);
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && isPlainObject(value) && viaProperties) {
        for (const [name, property] of Object.entries(value)) visit(property, `${path}.properties.${name}`, true, depth + 1);
      } else if (key !== MARK) {
        visit(value, `${path}.${key}`, false, depth + 1);
      }
    }
  };
  visit(inputSchema, '$', true, 0);
}
