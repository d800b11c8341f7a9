/**
 * The caller going away racing the approval, on a virtual clock. Whether the
 * connection unsubscribes (or a request's signal aborts) in the same frame as
 * the approval, just after it, or just before it: the approved tool is
 * aborted (or never starts), no reply goes out, and the server holds nothing
 * afterwards.
 */
import { describe, expect, test } from 'vitest';
import type { TestScheduler } from 'rxjs/testing';
import { allowlist, createServer, Registry, type McpServer, type PendingRequest, type ToolDef } from '../../lib/index.js';
import {
  elicitationAnswer,
  elicitationIdOf,
  initialize,
  newTestScheduler,
  newToolLog,
  record,
  sleepTool,
  toolCall,
  ZERO_STATS,
  type ToolLog,
} from './harness.js';

const WORK_MS = 10;

function guardedServer(ts: TestScheduler, tool: ToolDef): McpServer {
  return createServer({
    registry: new Registry().registerTool(tool),
    scheduler: ts,
    authorizer: allowlist([], { ask: { [tool.name]: 'Run it?' } }),
    authorizerSource: 'configured',
  });
}

/** A tool that, when the approval starts it, runs `onStart` at the end of the same frame. */
function toolThatTriggers(ts: TestScheduler, log: ToolLog, onStart: () => void): ToolDef {
  const inner = sleepTool('guarded', WORK_MS, ts, log);
  return {
    name: 'guarded',
    handler: (args, ctx) => {
      ts.schedule(onStart, 0);
      return inner.handler(args, ctx);
    },
  };
}

describe('connection exit racing the approval', () => {
  test('unsubscribing in the same frame as the approval (just after it): the tool aborts there, no reply', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let server!: McpServer;
    let recorder!: ReturnType<typeof record>;
    ts.run(({ hot }) => {
      server = guardedServer(ts, toolThatTriggers(ts, log, () => recorder.subscription.unsubscribe()));
      const inbound = hot('-i-c-a', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        a: () => elicitationAnswer(recorder.elicitationId(), 'approve'),
      });
      recorder = record(server, 'c1', inbound, ts);
    });
    expect(log).toEqual({ started: [5], finished: [], aborted: [5] });
    expect(recorder.repliesTo(1)).toEqual([]);
    expect(recorder.frames.map((f) => f.frame)).toEqual([1, 3]);
    expect(server.stats()).toMatchObject({ ...ZERO_STATS, capabilityEntries: 0 });
  });

  test('unsubscribing one frame after the approval: the running tool aborts then, no reply', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let server!: McpServer;
    let recorder!: ReturnType<typeof record>;
    ts.run(({ hot }) => {
      server = guardedServer(ts, sleepTool('guarded', WORK_MS, ts, log));
      const inbound = hot('-i-c-a', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        a: () => elicitationAnswer(recorder.elicitationId(), 'approve'),
      });
      recorder = record(server, 'c1', inbound, ts);
      ts.schedule(() => expect(server.stats().inFlight).toBe(1), 6);
      ts.schedule(() => recorder.subscription.unsubscribe(), 6);
    });
    expect(log).toEqual({ started: [5], finished: [], aborted: [6] });
    expect(recorder.repliesTo(1)).toEqual([]);
    expect(server.stats()).toMatchObject(ZERO_STATS);
  });

  test('the inbound completing (peer gone) right after the approval ends the connection the same way', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let server!: McpServer;
    let recorder!: ReturnType<typeof record>;
    ts.run(({ hot }) => {
      server = guardedServer(ts, sleepTool('guarded', WORK_MS, ts, log));
      const inbound = hot('-i-c-a|', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        a: () => elicitationAnswer(recorder.elicitationId(), 'approve'),
      });
      recorder = record(server, 'c1', inbound, ts);
    });
    expect(recorder.completedAt).toBe(6);
    expect(log).toEqual({ started: [5], finished: [], aborted: [6] });
    expect(recorder.repliesTo(1)).toEqual([]);
    expect(server.stats()).toMatchObject(ZERO_STATS);
  });
});

describe('request() caller exit racing the approval', () => {
  function setUp(ts: TestScheduler, tool: ToolDef) {
    const server = guardedServer(ts, tool);
    const ids: string[] = [];
    const pushes = server.subscribe((m) => {
      const id = elicitationIdOf(m);
      if (id !== undefined) ids.push(id);
    }, 'c1');
    void server.request(initialize(0), 'c1');
    return { server, ids, pushes };
  }

  test('the signal aborting in the same frame, right after the approval: the tool aborts, the reply is null', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const controller = new AbortController();
    let pending!: PendingRequest;
    let server!: McpServer;
    ts.run(() => {
      const setup = setUp(ts, sleepTool('guarded', WORK_MS, ts, log));
      server = setup.server;
      ts.schedule(() => (pending = server.request(toolCall(1, 'guarded'), 'c1', { signal: controller.signal })), 1);
      ts.schedule(() => {
        void server.handleMessage(elicitationAnswer(setup.ids[0], 'approve'), { connId: 'c1' });
        expect(log.started).toEqual([4]);
        controller.abort();
      }, 4);
      ts.schedule(() => setup.pushes.unsubscribe(), 20);
    });
    expect(log).toEqual({ started: [4], finished: [], aborted: [4] });
    await expect(pending.reply).resolves.toBeNull();
    expect(server.stats()).toMatchObject(ZERO_STATS);
  });

  test('the signal aborting just before the approval in the same frame: the tool never starts', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const controller = new AbortController();
    let pending!: PendingRequest;
    let server!: McpServer;
    ts.run(() => {
      const setup = setUp(ts, sleepTool('guarded', WORK_MS, ts, log));
      server = setup.server;
      ts.schedule(() => (pending = server.request(toolCall(1, 'guarded'), 'c1', { signal: controller.signal })), 1);
      ts.schedule(() => {
        controller.abort();
        void server.handleMessage(elicitationAnswer(setup.ids[0], 'approve'), { connId: 'c1' });
      }, 4);
      ts.schedule(() => setup.pushes.unsubscribe(), 20);
    });
    expect(log.started).toEqual([]);
    await expect(pending.reply).resolves.toBeNull();
    expect(server.stats()).toMatchObject(ZERO_STATS);
  });

  test("the connection's subscriber leaving after the approval aborts the request's tool; the reply is null", async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let pending!: PendingRequest;
    let server!: McpServer;
    ts.run(() => {
      const setup = setUp(ts, sleepTool('guarded', WORK_MS, ts, log));
      server = setup.server;
      ts.schedule(() => (pending = server.request(toolCall(1, 'guarded'), 'c1')), 1);
      ts.schedule(() => void server.handleMessage(elicitationAnswer(setup.ids[0], 'approve'), { connId: 'c1' }), 4);
      ts.schedule(() => setup.pushes.unsubscribe(), 7);
    });
    expect(log).toEqual({ started: [4], finished: [], aborted: [7] });
    await expect(pending.reply).resolves.toBeNull();
    expect(server.stats()).toMatchObject({ ...ZERO_STATS, capabilityEntries: 0 });
  });
});
