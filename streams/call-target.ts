/**
 * What a request is about, for logs, events and spans: the tool or prompt it
 * names, the resource URI it reads or (un)subscribes, the prompt name or
 * template URI a completion refers to. Undefined for lists, ping and
 * initialize, and for params that do not say.
 */
import { isPlainObject } from '../lib/protocol/jsonrpc.js';

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function callTarget(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (params === undefined) return undefined;
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return stringOr(params.name);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return stringOr(params.uri);
    case 'completion/complete': {
      const ref = params.ref;
      return isPlainObject(ref) ? (stringOr(ref.name) ?? stringOr(ref.uri)) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The field a log line names the target under (`tool`, `prompt`, `uri` or
 * `ref`): not `name`, which is the logger's own.
 */
export function targetField(method: string): 'tool' | 'prompt' | 'uri' | 'ref' {
  if (method === 'tools/call' || method === 'tools/list') return 'tool';
  if (method === 'prompts/get') return 'prompt';
  if (method === 'completion/complete') return 'ref';
  return 'uri';
}
