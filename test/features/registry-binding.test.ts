/**
 * The rules of a binding (registry.bindTools / bindResources / bindPrompts)
 * besides its timing (test/marbles/bound-definitions.test.ts): a key belongs
 * to one holder, and breaking that is a ConfigError thrown where it can be
 * (a synchronous value, a call) and logged where it cannot (a later value);
 * a set is applied all or none; derived bound tools stay out of the boot
 * check; a resource replaced with the same content$ is not resubscribed.
 */
import { BehaviorSubject, Observable, of, Subject, throwError } from 'rxjs';
import { describe, expect, test, vi } from 'vitest';
import { ConfigError, createServer, Registry, type AnyResourceDef, type Logger, type ToolDef } from '../../lib/index.js';
import { configErrorOf } from '../helpers/config-error.js';

const tool = (name: string, extra: Partial<ToolDef> = {}): ToolDef => ({ name, handler: () => name, ...extra });
const names = (registry: Registry) => registry.tools().map((t) => t.name);

function spyLogger() {
  return { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn<(obj: unknown, msg?: string) => void>() } satisfies Logger;
}

describe('one holder per key', () => {
  test('a synchronous set naming a tool registered by a call: bindTools throws, and binds nothing', () => {
    const registry = new Registry().registerTool(tool('taken'));
    const error = configErrorOf(() => registry.bindTools(of([tool('free'), tool('taken')])));
    expect(error.option).toBe('name');
    expect(error.message).toContain('bindTools: tool "taken" is already registered by registerTool()');
    expect(names(registry)).toEqual(['taken']);
  });

  test('two bindings may not share a name: the second throws and the first keeps it', () => {
    const registry = new Registry();
    const first = registry.bindTools(new BehaviorSubject([tool('a')]));
    const error = configErrorOf(() => registry.bindTools(new BehaviorSubject([tool('b'), tool('a')])));
    expect(error.message).toContain('tool "a" is already bound by another bindTools() binding');
    expect(names(registry)).toEqual(['a']);
    first.unsubscribe();
    expect(names(registry)).toEqual([]);
  });

  test('a call may not register over, or unregister, a bound key, even with replace', () => {
    const registry = new Registry();
    registry.bindTools(of([tool('a')]));
    registry.bindPrompts(of([{ name: 'p', get: () => 'p' }]));
    registry.bindResources(of([{ uri: 'mem://r', name: 'r', read: () => 'r' }]));
    expect(configErrorOf(() => registry.registerTool(tool('a'), { replace: true })).message).toContain('tool "a" is bound by bindTools()');
    expect(configErrorOf(() => registry.registerTools([tool('b'), tool('a')])).message).toContain('bound by bindTools()');
    expect(configErrorOf(() => registry.unregisterTool('a')).message).toContain('tool "a" is bound by bindTools()');
    expect(configErrorOf(() => registry.registerPrompt({ name: 'p', get: () => 'q' }, { replace: true })).option).toBe('name');
    expect(configErrorOf(() => registry.unregisterResource('mem://r')).option).toBe('uri');
    expect(names(registry)).toEqual(['a']);
  });

  test('the derived-over-derived rule is for calls only: a binding never takes a name', () => {
    const registry = new Registry().registerTool(tool('view.button'), { derived: true });
    expect(() => registry.bindTools(of([tool('view.button')]), { derived: true })).toThrow(ConfigError);
  });

  test('a later set that breaks the rule is logged and changes nothing; the binding goes on', () => {
    const logger = spyLogger();
    const registry = new Registry({ logger }).registerTool(tool('taken'));
    const defs$ = new Subject<ToolDef[]>();
    registry.bindTools(defs$);
    defs$.next([tool('a')]);
    defs$.next([tool('b'), tool('taken')]);
    expect(names(registry)).toEqual(['taken', 'a']);
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [fields, message] = logger.error.mock.calls[0]!;
    expect(message).toBe('bindTools: a set was refused and nothing changed; the binding keeps its last set');
    expect((fields as { err: Error }).err).toBeInstanceOf(ConfigError);
    defs$.next([tool('b')]);
    expect(names(registry)).toEqual(['taken', 'b']);
  });
});

describe('a set is checked whole', () => {
  test('a duplicate name, a bad definition or a value that is not iterable refuses the set', () => {
    const registry = new Registry({ logger: spyLogger() });
    expect(configErrorOf(() => registry.bindTools(of([tool('a'), tool('a')]))).message).toContain('appears twice in one set');
    expect(() => registry.bindTools(of([tool('a'), { name: 'b' } as ToolDef]))).toThrow('tool b needs a handler function');
    expect(() => registry.bindTools(of(42 as unknown as ToolDef[]))).toThrow('bindTools: each value must be an iterable');
    expect(() => registry.bindTools([tool('a')] as never)).toThrow('bindTools needs an Observable');
    expect(() => registry.bindResources(of([{ uri: 'mem://x', name: 'x', read: () => 'x', content$: of('y') } as never]))).toThrow('has both read and content$');
    expect(names(registry)).toEqual([]);
  });

  test('a source failing while bindTools runs is thrown from it', () => {
    const registry = new Registry();
    expect(() => registry.bindTools(throwError(() => new Error('no state')))).toThrow('no state');
  });

  test('a Set or a Map of definitions is a set too', () => {
    const registry = new Registry();
    registry.bindTools(of(new Set([tool('a')])));
    registry.bindTools(of(new Map([['b', tool('b')]]).values()));
    expect(names(registry)).toEqual(['a', 'b']);
  });
});

describe('derived bound tools and the boot check', () => {
  const sensitive = tool('rm', { annotations: { destructiveHint: true } });

  test('a bound sensitive tool is static by default: no authorizer, no boot', () => {
    const registry = new Registry();
    registry.bindTools(new BehaviorSubject([sensitive]));
    expect(configErrorOf(() => createServer({ registry })).message).toContain('sensitive tools need an authorizer: rm');
  });

  test('bound with { derived: true }: the server boots, and the tool is denied at tools/call', async () => {
    const registry = new Registry();
    registry.bindTools(new BehaviorSubject([sensitive]), { derived: true });
    const server = createServer({ registry });
    const reply = (await server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rm' } })) as { result: { isError: boolean } };
    expect(reply.result.isError).toBe(true);
    expect(registry.staticTools()).toEqual([]);
  });
});

describe('observable resources in a binding', () => {
  function counted(value: string) {
    const counts = { subscribed: 0, ended: 0 };
    const content$ = new Observable<string>((subscriber) => {
      counts.subscribed += 1;
      subscriber.next(value);
      return () => {
        counts.ended += 1;
      };
    });
    return { content$, counts };
  }
  const read = (registry: Registry) => registry.resource('app://x')!.read('app://x', {} as never);

  test('a replacement with the same content$ keeps its subscription; a new content$ is subscribed and the old one ended', () => {
    const one = counted('one');
    const two = counted('two');
    const defs$ = new Subject<AnyResourceDef[]>();
    const registry = new Registry();
    const binding = registry.bindResources(defs$);
    defs$.next([{ uri: 'app://x', name: 'x', content$: one.content$ }]);
    defs$.next([{ uri: 'app://x', name: 'x', description: 'described', content$: one.content$ }]);
    expect(one.counts).toEqual({ subscribed: 1, ended: 0 });
    expect(registry.resource('app://x')?.description).toBe('described');
    expect(read(registry)).toBe('one');
    defs$.next([{ uri: 'app://x', name: 'x', content$: two.content$ }]);
    expect(one.counts).toEqual({ subscribed: 1, ended: 1 });
    expect(two.counts).toEqual({ subscribed: 1, ended: 0 });
    expect(read(registry)).toBe('two');
    binding.unsubscribe();
    expect(two.counts).toEqual({ subscribed: 1, ended: 1 });
    expect(registry.resources()).toEqual([]);
  });
});
