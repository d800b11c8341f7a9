/**
 * The report as markdown: a header saying how the run was made (numbers
 * from a busy or different machine are not comparable), one table per
 * scenario (server medians, then ratio rows), its errors, and the goals.
 */
import type { ScenarioSummary } from './aggregate.js';
import { GOALS, verdict } from './goals.js';
import { SERVER_LABELS } from './driver/targets.js';

export interface RunInfo {
  readonly startedAt: string;
  readonly durationS: number;
  readonly rounds: number;
  readonly quick: boolean;
  readonly machine: string;
}

function number(value: number | undefined, digits: number): string {
  if (value === undefined || !Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function times(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(2)}x`;
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function scenarioTable(summary: ScenarioSummary): string[] {
  const labels = summary.metrics.map((m) => m.label);
  const lines = [
    `### ${summary.scenario.name}`,
    '',
    summary.scenario.title,
    '',
    row(['server', ...labels, 'rounds ok', 'failed calls']),
    row(['---', ...labels.map(() => '---:'), '---:', '---:']),
  ];
  for (const server of summary.servers) {
    lines.push(
      row([
        SERVER_LABELS[server.kind],
        ...server.medians.map((v, i) => number(v, summary.metrics[i]?.digits ?? 0)),
        `${server.rounds - server.failedRounds}/${server.rounds}`,
        String(server.failedCalls),
      ]),
    );
  }
  for (const ratio of summary.ratios) {
    lines.push(row([`**${ratio.label}**`, ...ratio.medians.map(times), `${ratio.pairs} pairs`, '']));
  }
  if (summary.errors.length > 0) {
    lines.push('', ...summary.errors.map((e) => `- error: ${e.replace(/\n/g, ' ')}`));
  }
  lines.push('');
  return lines;
}

function goalsTable(summaries: readonly ScenarioSummary[], quick: boolean): string[] {
  const note = quick ? ['A --quick run uses less load (2,000 idle sockets, fewer calls, one round): judge goals on a full run.', ''] : [];
  const lines = ['### goals (issues 5, 9, 10 and 22)', '', ...note, row(['goal', 'target', 'measured', 'verdict']), row(['---', '---', '---:', '---'])];
  for (const goal of GOALS) {
    const summary = summaries.find((s) => s.scenario.name === goal.scenario);
    if (summary === undefined) continue;
    const value = goal.value(summary);
    const target = goal.atLeast !== undefined ? `>= ${goal.atLeast}` : `<= ${String(goal.atMost)}`;
    lines.push(row([goal.text, target, number(value, 2), verdict(goal, value)]));
  }
  return lines.length > 4 + note.length ? [...lines, ''] : [];
}

export function renderMarkdown(info: RunInfo, summaries: readonly ScenarioSummary[]): string {
  const header = [
    '# rxmcp benchmark',
    '',
    `${info.startedAt}, ${info.machine}; ${info.rounds} round(s)${info.quick ? ' (--quick)' : ''}, ${info.durationS.toFixed(0)} s.`,
    'Medians over rounds; ratio rows are medians of per-round ratios (calls/s: higher is better; latency, CPU, RSS: lower is better).',
    'CPU and RSS are the server process only (/proc). In ws-idle-10k a call is a connect + initialize; in stdio-start it is a process start up to its first answer.',
    '',
  ];
  return [...header, ...summaries.flatMap(scenarioTable), ...goalsTable(summaries, info.quick)].join('\n');
}
