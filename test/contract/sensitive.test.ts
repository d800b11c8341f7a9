/**
 * Contract: sensitive tools (destructiveHint: true or sensitive: true) are
 * never served without an authorizer. Static ones refuse boot; derived and
 * late ones are denied at tools/call with sensitive_tool_unguarded.
 */
import { describe, expect, test } from 'vitest';
import { ConfigError, Registry, createServer, isSensitiveTool, type ToolDef } from '../../lib/index.js';
import { deniedResult, makeServer, rpc } from './helpers.js';

const call = (name: string) => rpc(1, 'tools/call', { name });

function refusal(build: () => unknown): ConfigError {
  try {
    build();
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected createServer to refuse');
}

describe('the sensitivity rule', () => {
  test.each<[string, Partial<ToolDef>, boolean]>([
    ['annotations.destructiveHint: true', { annotations: { destructiveHint: true } }, true],
    ['sensitive: true', { sensitive: true }, true],
    ['annotations.sensitive: true', { annotations: { sensitive: true } }, true],
    ['destructiveHint: false', { annotations: { destructiveHint: false } }, false],
    ['readOnlyHint only', { annotations: { readOnlyHint: true } }, false],
    ['nothing', {}, false],
  ])('%s', (_what, extra, sensitive) => {
    expect(isSensitiveTool({ name: 't', handler: () => 'x', ...extra })).toBe(sensitive);
  });
});

describe('boot refusal', () => {
  test('a static sensitive tool and no authorizer: ConfigError on option "authorizer" naming every such tool', () => {
    const registry = new Registry();
    registry.registerTool({ name: 'wipe_disk', annotations: { destructiveHint: true }, handler: () => 'x' });
    registry.registerTool({ name: 'harmless', handler: () => 'x' });
    registry.registerTool({ name: 'send_money', sensitive: true, handler: () => 'x' });
    const error = refusal(() => createServer({ registry }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.option).toBe('authorizer');
    expect(error.message).toContain('wipe_disk');
    expect(error.message).toContain('send_money');
    expect(error.message).not.toContain('harmless');
  });

  test('an explicit null authorizer is no authorizer', () => {
    const registry = new Registry().registerTool({ name: 'x', sensitive: true, handler: () => 'x' });
    expect(refusal(() => createServer({ registry, authorizer: null })).option).toBe('authorizer');
  });

  test('with an authorizer (of either source) the same registry boots and the tool runs when allowed', async () => {
    const registry = new Registry().registerTool({ name: 'wipe', sensitive: true, handler: () => 'wiped' });
    expect(() => createServer({ registry, authorizer: () => 'allow', authorizerSource: 'default' })).not.toThrow();
    const server = makeServer({ registry, authorizer: () => 'allow', authorizerSource: 'configured' });
    expect(((await server.handleMessage(call('wipe'))) as any).result).toStrictEqual({ content: [{ type: 'text', text: 'wiped' }] });
  });

  test('non-sensitive tools boot without an authorizer', () => {
    const registry = new Registry().registerTool({ name: 'read', annotations: { destructiveHint: false }, handler: () => 'x' });
    expect(() => createServer({ registry })).not.toThrow();
  });

  test('a static tool with a dotted name (agent.reset) is still checked', () => {
    const registry = new Registry().registerTool({ name: 'agent.reset', annotations: { destructiveHint: true }, handler: () => 'x' });
    const error = refusal(() => createServer({ registry }));
    expect(error.option).toBe('authorizer');
    expect(error.message).toContain('agent.reset');
  });

  test('a tool whose definition carries a `derived` key but is registered statically is still checked', () => {
    for (const derived of [true, 'yes', false]) {
      const def = { name: 'masquerade', sensitive: true, derived, handler: () => 'x' } as unknown as ToolDef;
      const registry = new Registry().registerTool(def);
      const error = refusal(() => createServer({ registry }));
      expect(error.message).toContain('masquerade');
    }
  });
});

describe('derived and late tools: denied at tools/call', () => {
  test('derived sensitive tools are left out of the boot check, then denied at call with sensitive_tool_unguarded', async () => {
    let ran = false;
    const registry = new Registry().registerTool(
      { name: 'widget.click', annotations: { destructiveHint: true }, handler: () => { ran = true; return 'x'; } },
      { derived: true },
    );
    const server = makeServer({ registry });
    const reply = await server.handleMessage(call('widget.click'));
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 1, result: deniedResult('widget.click', 'deny', 'sensitive_tool_unguarded') });
    expect(ran).toBe(false);
  });

  test('registerTools with derived: true excludes each of them from the boot check', () => {
    const registry = new Registry().registerTools(
      [
        { name: 'd1', sensitive: true, handler: () => 'x' },
        { name: 'd2', sensitive: true, handler: () => 'x' },
      ],
      { derived: true },
    );
    expect(() => createServer({ registry })).not.toThrow();
  });

  test('a derived tool does not hide a static sensitive one from the boot check', () => {
    const registry = new Registry()
      .registerTool({ name: 'derived.one', sensitive: true, handler: () => 'x' }, { derived: true })
      .registerTool({ name: 'static_one', sensitive: true, handler: () => 'x' });
    const error = refusal(() => createServer({ registry }));
    expect(error.message).toContain('static_one');
    expect(error.message).not.toContain('derived.one');
  });

  test('a sensitive tool registered after boot is denied at tools/call; the handler never runs', async () => {
    const server = makeServer();
    let ran = false;
    server.registry.registerTool({ name: 'late_wipe', sensitive: true, handler: () => { ran = true; return 'x'; } });
    server.registry.registerTool({ name: 'late_ok', handler: () => 'fine' });
    expect(((await server.handleMessage(call('late_wipe'))) as any).result).toStrictEqual(
      deniedResult('late_wipe', 'deny', 'sensitive_tool_unguarded'),
    );
    expect(((await server.handleMessage(call('late_ok'))) as any).result.content[0].text).toBe('fine');
    expect(ran).toBe(false);
  });

  test('the backstop runs before the worker: it needs no in-flight slot', async () => {
    const server = makeServer({ maxInFlight: 1 });
    server.registry.registerTool({ name: 'hold', handler: () => new Promise(() => {}) });
    server.registry.registerTool({ name: 'wipe', sensitive: true, handler: () => 'x' });
    void server.handleMessage(call('hold'));
    expect(server.stats().inFlight).toBe(1);
    expect(((await server.handleMessage(rpc(2, 'tools/call', { name: 'wipe' }), { connId: 'other' })) as any).result).toStrictEqual(
      deniedResult('wipe', 'deny', 'sensitive_tool_unguarded'),
    );
  });

  test('with an authorizer a late sensitive tool is the authorizer\'s call', async () => {
    const server = makeServer({ authorizer: () => 'allow' });
    server.registry.registerTool({ name: 'late', sensitive: true, handler: () => 'ran' }, { derived: true });
    expect(((await server.handleMessage(call('late'))) as any).result.content[0].text).toBe('ran');
  });
});
