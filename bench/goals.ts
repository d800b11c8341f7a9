/**
 * The targets issues 5, 9, 10 and 22 set for rxmcp, checked against a run's summaries.
 * They are reported, never enforced: a bench run does not fail on a miss.
 */
import type { ScenarioSummary } from './aggregate.js';

export interface Goal {
  readonly scenario: string;
  readonly text: string;
  /** The measured value the goal is about, from the scenario's summary. */
  value(summary: ScenarioSummary): number | undefined;
  readonly atMost?: number;
  readonly atLeast?: number;
}

function ratioOf(label: string, metric: string) {
  return (summary: ScenarioSummary): number | undefined => {
    const row = summary.ratios.find((r) => r.label === label);
    const column = summary.metrics.findIndex((m) => m.label === metric);
    return row === undefined || column === -1 ? undefined : row.medians[column];
  };
}

function rxmcpMetric(metric: string) {
  return (summary: ScenarioSummary): number | undefined => {
    const row = summary.servers.find((s) => s.kind === 'rxmcp');
    const column = summary.metrics.findIndex((m) => m.label === metric);
    return row === undefined || column === -1 ? undefined : row.medians[column];
  };
}

/** Issue 9's pair for one ratio row: CPU per call at most 1, calls/s at least 1. */
function eraGoals(scenario: string, what: string, comparison: string, row: string): Goal[] {
  return [
    { scenario, text: `${what} CPU/call, ${comparison} (issue 9)`, value: ratioOf(row, 'CPU µs/call'), atMost: 1 },
    { scenario, text: `${what} calls/s, ${comparison} (issue 9)`, value: ratioOf(row, 'calls/s'), atLeast: 1 },
  ];
}

/**
 * Issue 22's four for one echo scenario at one outstanding call: against the
 * limit at least 0.85x its calls at most 1.5x its CPU per call, and ahead of
 * the SDK in both.
 */
function loneCallGoals(scenario: string, what: string): Goal[] {
  return [
    { scenario, text: `${what} calls/s, rxmcp / limit (issue 22)`, value: ratioOf('rxmcp / limit', 'calls/s'), atLeast: 0.85 },
    { scenario, text: `${what} CPU/call, rxmcp / limit (issue 22)`, value: ratioOf('rxmcp / limit', 'CPU µs/call'), atMost: 1.5 },
    { scenario, text: `${what} calls/s, rxmcp / SDK (issue 22)`, value: ratioOf('rxmcp / SDK', 'calls/s'), atLeast: 1 },
    { scenario, text: `${what} CPU/call, rxmcp / SDK (issue 22)`, value: ratioOf('rxmcp / SDK', 'CPU µs/call'), atMost: 1 },
  ];
}

/** Issue 22's burst goal: median and p99 latency per call within 1.3x of the limit's. */
function burstGoals(scenario: string, what: string): Goal[] {
  return [
    { scenario, text: `${what} p50 latency, rxmcp / limit (issue 22)`, value: ratioOf('rxmcp / limit', 'p50 ms'), atMost: 1.3 },
    { scenario, text: `${what} p99 latency, rxmcp / limit (issue 22)`, value: ratioOf('rxmcp / limit', 'p99 ms'), atMost: 1.3 },
  ];
}

export const GOALS: readonly Goal[] = [
  { scenario: 'stdio-echo-c16', text: 'stdio echo C=16 calls/s, rxmcp / SDK', value: ratioOf('rxmcp / SDK', 'calls/s'), atLeast: 2 },
  { scenario: 'stdio-echo-c16', text: 'stdio echo C=16 calls/s, rxmcp / limit', value: ratioOf('rxmcp / limit', 'calls/s'), atLeast: 0.6 },
  { scenario: 'http-echo-c16', text: 'HTTP echo C=16 calls/s, rxmcp / SDK', value: ratioOf('rxmcp / SDK', 'calls/s'), atLeast: 2.5 },
  { scenario: 'stdio-echo-c16', text: 'stdio echo C=16 CPU/call, rxmcp / SDK', value: ratioOf('rxmcp / SDK', 'CPU µs/call'), atMost: 0.5 },
  { scenario: 'http-echo-c16', text: 'HTTP echo C=16 CPU/call, rxmcp / SDK', value: ratioOf('rxmcp / SDK', 'CPU µs/call'), atMost: 0.5 },
  { scenario: 'stdio-echo-c16', text: 'stdio echo C=16 peak RSS, rxmcp / SDK', value: ratioOf('rxmcp / SDK', 'peak RSS MB'), atMost: 0.7 },
  { scenario: 'http-echo-c16', text: 'HTTP echo C=16 peak RSS, rxmcp / SDK', value: ratioOf('rxmcp / SDK', 'peak RSS MB'), atMost: 0.7 },
  { scenario: 'stdio-sleep-1000', text: '1000 x sleep 50: spread / 50 ms (rxmcp)', value: rxmcpMetric('spread / 50 ms'), atMost: 1.3 },
  { scenario: 'ws-idle-10k', text: 'idle WebSocket KB per connection (rxmcp)', value: rxmcpMetric('KB / connection'), atMost: 20 },
  // Issue 9: the modern era costs no more than the legacy one on the same transport.
  ...eraGoals('stdio-modern-echo-c16', 'stdio echo C=16', 'modern / legacy', 'modern / legacy (rxmcp)'),
  // The same two paths given the same bytes (the legacy connection sent and answered a modern exchange's): what the path costs apart from the message size.
  ...eraGoals('stdio-modern-echo-c16', 'stdio echo C=16', 'modern / legacy, same bytes', 'modern / legacy, same bytes (rxmcp)'),
  ...eraGoals('http-modern-echo-c16', 'HTTP echo C=16', 'modern / legacy', 'modern / legacy (rxmcp)'),
  { scenario: 'http-echo-auth-c16', text: 'HTTP echo C=16 CPU/call, with JWT auth / without (issue 10)', value: ratioOf('with auth / without', 'CPU µs/call'), atMost: 1.3 },
  // Issue 22: one call at a time and bursts, against the limit server (plain Node), on a fresh server and a settled one.
  ...loneCallGoals('stdio-echo-c1', 'stdio echo C=1'),
  ...loneCallGoals('stdio-echo-c1-steady', 'stdio echo C=1, steady'),
  ...loneCallGoals('http-echo-c1', 'HTTP echo C=1'),
  ...loneCallGoals('http-echo-c1-steady', 'HTTP echo C=1, steady'),
  { scenario: 'stdio-echo-c16', text: 'stdio echo C=16 calls/s, rxmcp / limit (issue 22)', value: ratioOf('rxmcp / limit', 'calls/s'), atLeast: 0.85 },
  { scenario: 'stdio-echo-c16-steady', text: 'stdio echo C=16, steady, calls/s, rxmcp / limit (issue 22)', value: ratioOf('rxmcp / limit', 'calls/s'), atLeast: 0.85 },
  ...burstGoals('stdio-sleep-1000-fresh', '1000 x sleep 50, fresh server,'),
  ...burstGoals('stdio-sleep-1000-warm', '1000 x sleep 50 after warm-up,'),
  { scenario: 'stdio-echo-c16', text: 'stdio echo C=16 peak RSS, rxmcp / SDK (issue 22)', value: ratioOf('rxmcp / SDK', 'peak RSS MB'), atMost: 0.5 },
];

export function verdict(goal: Goal, value: number | undefined): 'met' | 'missed' | 'n/a' {
  if (value === undefined) return 'n/a';
  if (goal.atLeast !== undefined && value < goal.atLeast) return 'missed';
  if (goal.atMost !== undefined && value > goal.atMost) return 'missed';
  return 'met';
}
