/**
 * The wiring from options: caps from the parking options, the ring from
 * requestStateKeys (or a per-process key with one warning), the audience
 * from `name`, the TTL from approvalTtlMs, and a rejected state's reason in
 * events and at info in the log, never to the client.
 */
import { describe, expect, test } from 'vitest';
import { VirtualTimeScheduler, firstValueFrom } from 'rxjs';
import type { ApprovalEvent } from '../../lib/events.js';
import type { Logger } from '../../lib/logger.js';
import { resolveOptions, type ServerOptions } from '../../lib/options.js';
import { approvalCounts, approvalDeps } from '../../streams/state/approval-setup.js';
import { ApprovalCounts } from '../../lib/approval-counts.js';
import { MemoryApprovalLedger, type ApprovalLedgerSetup } from '../../lib/ports/approval-ledger.js';
import { ConfigError, createServer } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { issueApproval, redeemApproval, type ApprovalAsk } from '../../streams/mrtr-approval.js';

const ASK: ApprovalAsk = { method: 'tools/call', target: 'wipe', arguments: {}, holder: 'c', peer: 'c', prompt: 'Wipe?' };
const APPROVE = { 'rxmcp.approve': { action: 'accept', content: { approve: true } } };

function recordingLogger() {
  const lines: Array<[string, unknown, string | undefined]> = [];
  const logger: Logger = {
    debug: (o, m) => lines.push(['debug', o, m]),
    info: (o, m) => lines.push(['info', o, m]),
    warn: (o, m) => lines.push(['warn', o, m]),
    error: (o, m) => lines.push(['error', o, m]),
  };
  return { logger, lines };
}

function wired(extra: ServerOptions = {}) {
  const scheduler = new VirtualTimeScheduler();
  const { logger, lines } = recordingLogger();
  const options = resolveOptions({ scheduler, logger, ...extra });
  const counts = approvalCounts(options);
  const events: ApprovalEvent[] = [];
  const deps = approvalDeps(options, counts, (e) => events.push(e));
  return { scheduler, lines, counts, events, deps };
}

async function stateOf(deps: ReturnType<typeof wired>['deps'], ask = ASK): Promise<string> {
  const step = await firstValueFrom(issueApproval(deps, ask));
  if (step.step !== 'input_required') throw new Error(step.step);
  return step.result.requestState as string;
}

describe('approvalDeps from resolved options', () => {
  test('caps come from the parking options', () => {
    const { counts } = wired({ maxParkedElicitations: 3, maxParkedElicitationsPerPeer: 5, maxParkedElicitationsTotal: 9 });
    expect(counts.caps).toEqual({ maxPerHolder: 3, maxPerPeer: 5, maxTotal: 9 });
  });

  test('without requestStateKeys: one warning on the first seal, none before', async () => {
    const { deps, lines } = wired();
    expect(lines).toEqual([]);
    await stateOf(deps);
    await stateOf(deps);
    expect(lines.filter(([level]) => level === 'warn')).toEqual([['warn', { option: 'requestStateKeys' }, expect.stringMatching(/per-process|this process only/)]]);
  });

  test('with requestStateKeys: no warning, and another server with the same keys and name opens the state', async () => {
    const keys = { requestStateKeys: ['s'.repeat(40)], name: 'files' };
    const a = wired(keys);
    const b = wired(keys);
    const state = await stateOf(a.deps);
    expect(a.lines).toEqual([]);
    // B's ledger never issued it: authentic, so it is asked again rather than refused.
    expect((await firstValueFrom(redeemApproval(b.deps, { ...ASK, requestState: state, inputResponses: APPROVE }))).step).toBe('input_required');
    const other = wired({ ...keys, name: 'billing' });
    expect(await firstValueFrom(redeemApproval(other.deps, { ...ASK, requestState: state, inputResponses: APPROVE }))).toEqual({
      step: 'invalid',
      reason: 'wrong_audience',
    });
  });

  test('the ticket lives approvalTtlMs on the server scheduler', async () => {
    const { deps, scheduler, counts } = wired({ approvalTtlMs: 50 });
    const state = await stateOf(deps);
    scheduler.flush();
    expect(scheduler.now()).toBe(50);
    expect(counts.total()).toBe(0);
    expect(await firstValueFrom(redeemApproval(deps, { ...ASK, requestState: state, inputResponses: APPROVE }))).toEqual({
      step: 'denied',
      detail: 'timed out',
    });
  });

  test('a rejected state: its reason in events and at info in the log; the token text in neither', async () => {
    const { deps, lines, events } = wired({ requestStateKeys: ['s'.repeat(40)] });
    const state = await stateOf(deps);
    const step = await firstValueFrom(redeemApproval(deps, { ...ASK, holder: 'intruder', requestState: state, inputResponses: APPROVE }));
    expect(step).toEqual({ step: 'invalid', reason: 'wrong_owner' });
    const rejected = { type: 'request_state_rejected', method: 'tools/call', name: 'wipe', reason: 'wrong_owner' };
    expect(events.at(-1)).toEqual(rejected);
    expect(lines).toEqual([['info', rejected, 'requestState refused']]);
    expect(JSON.stringify([events, lines])).not.toContain(state.slice(10, 40));
  });
});

describe('the approvalLedger option (a cluster store instead of the in-memory ledger)', () => {
  test('the factory gets the caps, ttl, scheduler, logger and the event reporter; its ledger is the one used', async () => {
    const setups: ApprovalLedgerSetup[] = [];
    const memory = (setup: ApprovalLedgerSetup) => {
      setups.push(setup);
      // A stand-in store: a memory ledger of its own counts, so legacy parking's counts stay untouched.
      return new MemoryApprovalLedger({ counts: new ApprovalCounts(setup.caps), scheduler: setup.scheduler, ttlMs: setup.ttlMs, report: setup.report });
    };
    const { deps, counts, events, scheduler, lines } = wired({
      approvalLedger: memory,
      approvalTtlMs: 700,
      maxParkedElicitations: 3,
      maxParkedElicitationsPerPeer: 5,
      maxParkedElicitationsTotal: 9,
    });
    expect(setups).toHaveLength(1);
    expect(setups[0]).toMatchObject({ caps: { maxPerHolder: 3, maxPerPeer: 5, maxTotal: 9 }, ttlMs: 700, scheduler });
    setups[0]!.logger.warn({ from: 'store' }, 'hello');
    expect(lines).toContainEqual(['warn', { from: 'store' }, 'hello']);
    await stateOf(deps);
    expect(counts.total()).toBe(0);
    expect(events).toEqual([expect.objectContaining({ type: 'approval_issued', outstanding: 1 })]);
  });

  test.each([
    ['not a function', { take() {} }, /approvalLedger must be a function/],
    ['a factory returning no ledger', () => ({ admit() {}, take() {} }), /approvalLedger must return a ledger with admit, take, reissue and dropHolder/],
  ])('%s: createServer refuses to start, naming the option', (_what, value, message) => {
    const attempt = () => createServer({ logger: silentLogger(), approvalLedger: value as never });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).option).toBe('approvalLedger');
    }
  });
});
