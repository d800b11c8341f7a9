/**
 * list_changed coalescing on a virtual clock: any number of registry changes
 * of one kind in one frame become one notifications/<kind>/list_changed in
 * that frame, sent to every connection; changes in different frames are
 * separate notifications.
 */
import { NEVER } from 'rxjs';
import { describe, test } from 'vitest';
import { createServer, Registry, type ToolDef } from '../../lib/index.js';
import { connectMarbles, newTestScheduler } from './harness.js';

const tool = (name: string): ToolDef => ({ name, handler: () => name });
const note = (method: string) => ({ jsonrpc: '2.0', method });
const values = {
  t: note('notifications/tools/list_changed'),
  r: note('notifications/resources/list_changed'),
  p: note('notifications/prompts/list_changed'),
};

describe('list_changed coalescing', () => {
  test('several tool changes in one frame are one notifications/tools/list_changed, on every connection', () => {
    const ts = newTestScheduler();
    ts.run(({ expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      ts.schedule(() => {
        registry.registerTool(tool('a'));
        registry.registerTool(tool('b'));
        registry.unregisterTool('a');
        registry.registerTools([tool('c'), tool('d')]);
      }, 3);
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('---t', values);
      expectObservable(connectMarbles(server, 'B', NEVER)).toBe('---t', values);
    });
  });

  test('changes in consecutive frames are separate notifications; a no-op unregister is none', () => {
    const ts = newTestScheduler();
    ts.run(({ expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      ts.schedule(() => registry.registerTool(tool('a')), 2);
      ts.schedule(() => registry.registerTool(tool('b')), 3);
      ts.schedule(() => registry.unregisterTool('missing'), 6);
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('--tt', values);
    });
  });

  test('each kind coalesces on its own: one notification per kind changed in the frame', () => {
    const ts = newTestScheduler();
    ts.run(({ expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      ts.schedule(() => {
        registry.registerResource({ uri: 'mem://a', name: 'a', read: () => 'a' });
        registry.registerPrompt({ name: 'p', get: () => 'p' });
        registry.registerResourceTemplate({ uriTemplate: 'mem://t/{x}', name: 't', read: () => 't' });
        registry.registerTool(tool('x'));
        registry.registerPrompt({ name: 'q', get: () => 'q' });
      }, 4);
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('----(rpt)', values);
    });
  });

  test('a connection that subscribes after the frame gets nothing for it', () => {
    const ts = newTestScheduler();
    ts.run(({ expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      ts.schedule(() => registry.registerTool(tool('a')), 1);
      ts.schedule(() => registry.registerTool(tool('b')), 5);
      expectObservable(connectMarbles(server, 'late', NEVER), '---^').toBe('-----t', values);
    });
  });
});
