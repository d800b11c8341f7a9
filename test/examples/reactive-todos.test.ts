/**
 * examples/reactive: a todo store (a BehaviorSubject changed by actions)
 * exposed as tools bound from its state and an observable resource, driven
 * by the official clients in-process (MemoryClientTransport): SDK 1.32.2 on
 * the legacy era (resources/subscribe, list_changed unsolicited) and the v2
 * client 2.4.0 pinned to 2026-07-28 (subscriptions/listen). A tool that
 * changes the state is followed by notifications/resources/updated, and a
 * read then answers the new state; tools derived from the state come and go.
 */
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import { TodoStore } from '../../examples/reactive/todo-store.js';
import { TODOS_URI, todoRegistry } from '../../examples/reactive/todo-registry.js';
import { createServer, type McpServer } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

function todoServer(): { store: TodoStore; server: McpServer } {
  const store = new TodoStore();
  const server = createServer({ registry: todoRegistry(store), name: 'todos' });
  closers.push(async () => server.close());
  return { store, server };
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text;
const todosIn = (read: unknown) => JSON.parse((read as { contents: Array<{ text: string }> }).contents[0]!.text) as Array<{ id: string; text: string; done: boolean }>;

describe('the reactive todo example, legacy era (SDK 1.32.2)', () => {
  test('a tool that changes the state sends resources/updated, then a read has it; state-derived tools come and go', async () => {
    const { store, server } = todoServer();
    const client = new Client({ name: 'todos-legacy', version: '1.0.0' });
    closers.push(() => client.close());
    const updates: string[] = [];
    let listChanges = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanges += 1));
    await client.connect(new MemoryClientTransport(server));

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add_todo']);
    expect(todosIn(await client.readResource({ uri: TODOS_URI }))).toEqual([]);
    await client.subscribeResource({ uri: TODOS_URI });

    expect(textOf(await client.callTool({ name: 'add_todo', arguments: { text: 'buy milk' } }))).toBe('added 1');
    await expect.poll(() => updates).toEqual([TODOS_URI]);
    expect(todosIn(await client.readResource({ uri: TODOS_URI }))).toEqual([{ id: '1', text: 'buy milk', done: false }]);
    await expect.poll(() => listChanges).toBe(1);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(['add_todo', 'complete_todo']);
    expect(tools[1]!.inputSchema).toMatchObject({ properties: { id: { enum: ['1'] } } });

    expect(textOf(await client.callTool({ name: 'complete_todo', arguments: { id: '1' } }))).toBe('done: buy milk');
    await expect.poll(() => updates).toEqual([TODOS_URI, TODOS_URI]);
    expect(todosIn(await client.readResource({ uri: TODOS_URI }))).toEqual([{ id: '1', text: 'buy milk', done: true }]);
    await expect.poll(() => listChanges).toBe(2);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add_todo', 'clear_done']);

    // The application changes its own state: the client hears it the same way.
    store.dispatch({ type: 'clearDone' });
    await expect.poll(() => updates).toEqual([TODOS_URI, TODOS_URI, TODOS_URI]);
    expect(todosIn(await client.readResource({ uri: TODOS_URI }))).toEqual([]);
    // A call of a tool the state no longer has is refused like any unknown tool.
    await expect.poll(() => listChanges).toBe(3);
    await expect(client.callTool({ name: 'clear_done', arguments: {} })).rejects.toThrow(/clear_done/);
  });
});

describe('the reactive todo example, modern era (client 2.4.0 pinned 2026-07-28)', () => {
  test('subscriptions/listen hears resources/updated and tools/list_changed after a tool changes the state', async () => {
    const { server } = todoServer();
    const client = new ModernClient({ name: 'todos-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    closers.push(() => client.close());
    const heard: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(`updated ${n.params.uri}`));
    client.setNotificationHandler('notifications/tools/list_changed', () => void heard.push('tools'));
    await client.connect(new MemoryClientTransport(server));
    expect(client.getProtocolEra()).toBe('modern');

    const listen = await client.listen({ toolsListChanged: true, resourceSubscriptions: [TODOS_URI] });
    expect(listen.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [TODOS_URI] });
    await client.callTool({ name: 'add_todo', arguments: { text: 'write tests' } });
    await expect.poll(() => [...heard].sort()).toEqual(['tools', `updated ${TODOS_URI}`]);
    const read = await client.readResource({ uri: TODOS_URI });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual([{ id: '1', text: 'write tests', done: false }]);
    await listen.close();
  });
});
