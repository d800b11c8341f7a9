import { describe, expect, test } from 'vitest';
import { allowAll, createServer, Registry } from '../../lib/index.js';

function registryWith(count: number) {
  const registry = new Registry();
  for (let i = 0; i < count; i++) {
    registry.registerTool({ name: `tool_${i}`, handler: () => 'ok' });
    registry.registerResource({ uri: `test://r/${i}`, name: `r${i}`, read: () => 'x' });
    registry.registerResourceTemplate({ uriTemplate: `test://t${i}/{id}`, name: `t${i}`, read: () => 'x' });
    registry.registerPrompt({ name: `prompt_${i}`, get: () => 'x' });
  }
  return registry;
}

const LISTS = [
  ['tools/list', 'tools', (e: Record<string, unknown>) => e.name],
  ['resources/list', 'resources', (e: Record<string, unknown>) => e.uri],
  ['resources/templates/list', 'resourceTemplates', (e: Record<string, unknown>) => e.uriTemplate],
  ['prompts/list', 'prompts', (e: Record<string, unknown>) => e.name],
] as const;

describe.each(LISTS)('%s pagination', (method, key, identify) => {
  test('walks every item exactly once with opaque cursors, in registration order', async () => {
    const server = createServer({ registry: registryWith(7), pageSize: 3, authorizer: allowAll() });
    const seen: unknown[] = [];
    let cursor: unknown;
    let pages = 0;
    do {
      const reply = (await server.handleMessage({
        jsonrpc: '2.0',
        id: pages,
        method,
        params: cursor === undefined ? {} : { cursor },
      })) as { result: Record<string, unknown> };
      const items = reply.result[key] as Array<Record<string, unknown>>;
      expect(items.length).toBeLessThanOrEqual(3);
      seen.push(...items.map(identify));
      cursor = reply.result.nextCursor;
      pages += 1;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  test('a cursor we did not mint is -32602', async () => {
    const server = createServer({ registry: registryWith(2), pageSize: 1 });
    for (const cursor of ['not-a-cursor', 42, Buffer.from('{"o":-1}').toString('base64url'), '']) {
      const reply = await server.handleMessage({ jsonrpc: '2.0', id: 1, method, params: { cursor } });
      expect(reply).toMatchObject({ id: 1, error: { code: -32602, message: 'Invalid cursor' } });
    }
  });

  test('no nextCursor when everything fits', async () => {
    const server = createServer({ registry: registryWith(2) });
    const reply = (await server.handleMessage({ jsonrpc: '2.0', id: 1, method })) as { result: Record<string, unknown> };
    expect(reply.result).not.toHaveProperty('nextCursor');
    expect(reply.result[key]).toHaveLength(2);
  });
});
