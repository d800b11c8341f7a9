/**
 * Definitions bound from an Observable (registry.bindTools / bindResources /
 * bindPrompts) on a virtual clock: each value is the whole current set,
 * applied by difference; list_changed is sent when what clients see changed,
 * coalesced per kind per frame with every other change; completing keeps
 * the last set, unsubscribing or a failing source removes it.
 */
import { map, NEVER } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, Registry, type PromptDef, type ToolDef } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { connectMarbles, newTestScheduler, textResult, toolCall } from './harness.js';

const tool = (name: string, text = name, description?: string): ToolDef =>
  description === undefined ? { name, handler: () => text } : { name, description, handler: () => text };
const prompt = (name: string): PromptDef => ({ name, get: () => name });
const note = (method: string) => ({ jsonrpc: '2.0', method });
const lists = {
  t: note('notifications/tools/list_changed'),
  r: note('notifications/resources/list_changed'),
  p: note('notifications/prompts/list_changed'),
};

describe('bindTools: register and unregister by difference', () => {
  test('each value is the whole set: names that left go, new ones come; a value naming the same definitions sends nothing', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      const [a, b, c] = [tool('a'), tool('b'), tool('c')];
      const defs$ = hot('-x--y--z--w', { x: [a, b], y: [b, c], z: [b, c], w: [c, b] });
      registry.bindTools(defs$);
      const names$ = defs$.pipe(map(() => registry.tools().map((t) => t.name).join(',')));
      expectObservable(names$).toBe('-x--y--z--w', { x: 'a,b', y: 'b,c', z: 'b,c', w: 'b,c' });
      // w only reorders the same definitions: the registry keeps its order and nothing is announced.
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('-t--t------', lists);
    });
  });

  test('a changed definition replaces the old one in its place; announced only when its listing changed', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      const defs$ = hot('-x--y--z', {
        x: [tool('a', 'first'), tool('b')],
        y: [tool('a', 'second'), tool('b')], // a new handler, the same listing
        z: [tool('a', 'third', 'now described'), tool('b')],
      });
      registry.bindTools(defs$);
      const inbound = hot('--1--2--3', { 1: toolCall(1, 'a'), 2: toolCall(2, 'a'), 3: toolCall(3, 'a') });
      expectObservable(connectMarbles(server, 'A', inbound)).toBe('-t1--2-t3', {
        ...lists,
        1: textResult(1, 'first'),
        2: textResult(2, 'second'),
        3: textResult(3, 'third'),
      });
      expectObservable(defs$.pipe(map(() => registry.tools().map((t) => t.name).join(',')))).toBe('-x--y--z', { x: 'a,b', y: 'a,b', z: 'a,b' });
    });
  });

  test('changes of several bindings and registrations in one frame are one list_changed per kind', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      registry.bindTools(hot('--x', { x: [tool('a')] }));
      registry.bindTools(hot('--x', { x: [tool('b'), tool('c')] }));
      registry.bindPrompts(hot('--x', { x: [prompt('p')] }));
      ts.schedule(() => registry.registerTool(tool('d')), 2);
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('--(tp)', lists);
    });
  });

  test('completing keeps the last set; unsubscribing then removes it, with one list_changed', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      const binding = registry.bindTools(hot('-x-|', { x: [tool('a'), tool('b')] }));
      ts.schedule(() => {
        expect(registry.tools().map((t) => t.name)).toEqual(['a', 'b']);
        expect(binding.closed).toBe(false);
        binding.unsubscribe();
      }, 6);
      ts.schedule(() => expect(registry.tools()).toEqual([]), 7);
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('-t----t', lists);
    });
  });

  test('a failing source removes what it bound (logged), with one list_changed', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry({ logger: silentLogger() });
      const server = createServer({ registry, scheduler: ts });
      const binding = registry.bindTools(hot('-x--#', { x: [tool('a')] }));
      ts.schedule(() => expect(binding.closed).toBe(true), 5);
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('-t--t', lists);
    });
  });

  test('a set refused after bindTools returned changes nothing, and the next good set applies', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry({ logger: silentLogger() });
      const server = createServer({ registry, scheduler: ts });
      registry.registerTool(tool('taken'));
      const defs$ = hot('-x--y--z', { x: [tool('a')], y: [tool('b'), tool('taken')], z: [tool('b')] });
      registry.bindTools(defs$);
      expectObservable(defs$.pipe(map(() => registry.tools().map((t) => t.name).join(',')))).toBe('-x--y--z', {
        x: 'taken,a',
        y: 'taken,a',
        z: 'taken,b',
      });
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('-t-----t', lists);
    });
  });

  test('bindResources by URI, observable and read resources alike', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const registry = new Registry();
      const server = createServer({ registry, scheduler: ts });
      const read = { uri: 'mem://read', name: 'read', read: () => 'r' };
      const live = { uri: 'mem://live', name: 'live', content$: cold('a', { a: 'v' }) };
      const defs$ = hot('-x--y', { x: [read, live], y: [live] });
      registry.bindResources(defs$);
      expectObservable(defs$.pipe(map(() => registry.resources().map((r) => r.uri).join(',')))).toBe('-x--y', {
        x: 'mem://read,mem://live',
        y: 'mem://live',
      });
      expectObservable(connectMarbles(server, 'A', NEVER)).toBe('-r--r', lists);
    });
  });
});
