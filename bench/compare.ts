/**
 * The side-by-side run: for each scenario, rounds of SDK, rxmcp, then the
 * limit server (A, B, A, B ...: alternating in one run so machine drift hits
 * both alike), each run on a fresh server process. Prints the markdown
 * report to stdout and writes it to bench/results/latest.md (gitignored);
 * progress goes to stderr.
 *
 *   node dist/bench/compare.js [--quick] [--rounds N] [--scenario NAME[,NAME...]]...
 *
 * `--quick`: fewer calls, 1 round (unless --rounds). Default 3 rounds.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { summarize, type RunRecord } from './aggregate.js';
import { SCENARIOS, type Scenario } from './catalogue.js';
import { target } from './driver/targets.js';
import { renderMarkdown } from './render.js';

interface CompareArgs {
  readonly quick: boolean;
  readonly rounds: number;
  readonly scenarios: readonly Scenario[];
}

function parseArgs(argv: readonly string[]): CompareArgs {
  const quick = argv.includes('--quick');
  let rounds = quick ? 1 : 3;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--scenario') names.push(...(argv[++i] ?? '').split(',').filter((n) => n.length > 0));
    else if (arg === '--rounds') rounds = Number(argv[++i]);
    else if (arg !== '--quick') throw new Error(`unknown argument ${String(arg)}`);
  }
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('--rounds needs a positive integer');
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  const scenarios = names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
  return { quick, rounds, scenarios };
}

async function runScenario(scenario: Scenario, args: CompareArgs): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (let round = 1; round <= args.rounds; round += 1) {
    for (const kind of scenario.servers) {
      const label = `${scenario.name} round ${round}/${args.rounds} ${kind}`;
      try {
        const measurement = await scenario.run(target(kind, scenario.wire, scenario.serverArgs?.[kind] ?? []), args.quick);
        records.push({ round, kind, measurement });
        process.stderr.write(`${label}: ${measurement.callsPerSec.toFixed(0)} calls/s, p99 ${measurement.p99Ms.toFixed(2)} ms\n`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        records.push({ round, kind, error: message });
        process.stderr.write(`${label}: FAILED ${message}\n`);
      }
    }
  }
  return records;
}

const args = parseArgs(process.argv.slice(2));
const began = Date.now();
const summaries = [];
for (const scenario of args.scenarios) summaries.push(summarize(scenario, await runScenario(scenario, args)));
const markdown = renderMarkdown(
  {
    startedAt: new Date(began).toISOString(),
    durationS: (Date.now() - began) / 1000,
    rounds: args.rounds,
    quick: args.quick,
    machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  },
  summaries,
);
const resultsDir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
writeFileSync(`${resultsDir}latest.md`, markdown);
process.stdout.write(markdown);
