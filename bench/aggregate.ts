/**
 * From rounds to numbers: the median of each metric per server over the
 * rounds that succeeded, and the median of the per-round ratios
 * rxmcp/SDK, rxmcp/SDK v2, rxmcp/limit and rxmcp modern/legacy (a ratio
 * within one round compares two runs made seconds apart, so drift in
 * machine load cancels out).
 */
import type { ExtraColumn, Scenario } from './catalogue.js';
import type { Measurement } from './driver/measurement.js';
import type { ServerKind } from './driver/targets.js';
import { median } from './driver/stats.js';

export interface RunRecord {
  readonly round: number;
  readonly kind: ServerKind;
  readonly measurement?: Measurement;
  readonly error?: string;
}

export interface Metric {
  readonly label: string;
  readonly digits: number;
  get(m: Measurement): number | undefined;
}

export const BASE_METRICS: readonly Metric[] = [
  { label: 'calls/s', digits: 0, get: (m) => m.callsPerSec },
  { label: 'p50 ms', digits: 2, get: (m) => m.p50Ms },
  { label: 'p99 ms', digits: 2, get: (m) => m.p99Ms },
  { label: 'CPU µs/call', digits: 1, get: (m) => m.cpuUsPerCall },
  // The part of the CPU on V8's compiler and GC helper threads: what a server still compiling its hot code spends.
  { label: 'of it helper threads', digits: 1, get: (m) => m.helperCpuUsPerCall },
  { label: 'peak RSS MB', digits: 1, get: (m) => (m.peakRssKb === undefined ? undefined : m.peakRssKb / 1024) },
];

function extraMetric(column: ExtraColumn): Metric {
  return { label: column.label, digits: column.digits, get: (m) => m.extra[column.key] };
}

export function metricsOf(scenario: Scenario): Metric[] {
  return [...BASE_METRICS, ...(scenario.extraColumns ?? []).map(extraMetric)];
}

export interface ServerSummary {
  readonly kind: ServerKind;
  readonly rounds: number;
  readonly failedRounds: number;
  readonly failedCalls: number;
  readonly medians: (number | undefined)[];
}

export interface RatioSummary {
  readonly label: string;
  readonly pairs: number;
  readonly medians: (number | undefined)[];
}

export interface ScenarioSummary {
  readonly scenario: Scenario;
  readonly metrics: Metric[];
  readonly servers: ServerSummary[];
  readonly ratios: RatioSummary[];
  readonly errors: string[];
}

function measured(records: readonly RunRecord[], kind: ServerKind): { round: number; m: Measurement }[] {
  return records.flatMap((r) => (r.kind === kind && r.measurement !== undefined ? [{ round: r.round, m: r.measurement }] : []));
}

function ratio(records: readonly RunRecord[], metrics: readonly Metric[], top: ServerKind, bottom: ServerKind, label: string): RatioSummary | undefined {
  const below = new Map(measured(records, bottom).map(({ round, m }) => [round, m]));
  const pairs = measured(records, top).flatMap(({ round, m }) => {
    const other = below.get(round);
    return other === undefined ? [] : [{ m, other }];
  });
  if (pairs.length === 0) return undefined;
  const medians = metrics.map((metric) =>
    median(
      pairs.map(({ m, other }) => {
        const a = metric.get(m);
        const b = metric.get(other);
        return a === undefined || b === undefined || b === 0 ? undefined : a / b;
      }),
    ),
  );
  return { label, pairs: pairs.length, medians };
}

export function summarize(scenario: Scenario, records: readonly RunRecord[]): ScenarioSummary {
  const metrics = metricsOf(scenario);
  const servers = scenario.servers.map((kind): ServerSummary => {
    const runs = records.filter((r) => r.kind === kind);
    const ok = measured(records, kind).map(({ m }) => m);
    return {
      kind,
      rounds: runs.length,
      failedRounds: runs.length - ok.length,
      failedCalls: ok.reduce((sum, m) => sum + m.failed, 0),
      medians: metrics.map((metric) => median(ok.map((m) => metric.get(m)))),
    };
  });
  const ratios = [
    scenario.servers.includes('sdk') ? ratio(records, metrics, 'rxmcp', 'sdk', 'rxmcp / SDK') : undefined,
    scenario.servers.includes('sdk2') ? ratio(records, metrics, 'rxmcp', 'sdk2', 'rxmcp / SDK v2') : undefined,
    scenario.servers.includes('rxmcp-legacy') ? ratio(records, metrics, 'rxmcp', 'rxmcp-legacy', 'modern / legacy (rxmcp)') : undefined,
    scenario.servers.includes('rxmcp-legacy-sized')
      ? ratio(records, metrics, 'rxmcp', 'rxmcp-legacy-sized', 'modern / legacy, same bytes (rxmcp)')
      : undefined,
    scenario.servers.includes('limit') ? ratio(records, metrics, 'rxmcp', 'limit', 'rxmcp / limit') : undefined,
    scenario.servers.includes('rxmcp-auth') ? ratio(records, metrics, 'rxmcp-auth', 'rxmcp', 'with auth / without') : undefined,
  ].filter((r): r is RatioSummary => r !== undefined);
  const errors = records.flatMap((r) => {
    const first = r.measurement?.firstError;
    if (r.error !== undefined) return [`round ${r.round} ${r.kind}: ${r.error}`];
    if (first !== undefined) return [`round ${r.round} ${r.kind}: ${r.measurement?.failed ?? 0} calls failed, first: ${first}`];
    return [];
  });
  return { scenario, metrics, servers, ratios, errors };
}
