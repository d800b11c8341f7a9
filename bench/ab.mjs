#!/usr/bin/env node
// A/B of two builds of rxmcp on the echo scenarios, in one run: each round runs every
// scenario against A (a baseline checkout's dist, given) then B (this checkout's dist),
// alternating which goes first, and the report is the median per scenario of each build's
// CPU µs per call and calls/s, with B/A. Measure on an idle machine.
//
//   npm run build && node bench/ab.mjs /path/to/baseline-checkout [--rounds 3] [--calls 20000]
// (the baseline checkout built with `npm run build` too)
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const base = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (base === undefined) throw new Error('usage: node bench/ab.mjs BASELINE_CHECKOUT [--rounds N] [--calls N]');
const opt = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const rounds = opt('--rounds', 3);
const calls = opt('--calls', 20000);
const builds = { A: resolve(base), B: resolve('.') };
const scenarios = [
  { name: 'stdio echo, 1 outstanding', wire: 'stdio', c: 1, transport: 'stdio' },
  { name: 'stdio echo, 16 outstanding', wire: 'stdio', c: 16, transport: 'stdio' },
  { name: 'Streamable HTTP echo, 1', wire: 'http', c: 1, transport: 'http' },
  { name: 'Streamable HTTP echo, 16', wire: 'http', c: 16, transport: 'http' },
];
const runs = {};
function once(build, s) {
  const dir = builds[build];
  const n = s.c === 1 ? Math.min(calls, 5000) : calls;
  const out = execFileSync(
    'node',
    [`${dir}/dist/bench/driver/cli.js`, '--wire', s.wire, '--concurrency', String(s.c), '--calls', String(n), '--warmup', String(Math.floor(n / 4)), '--', 'node', `${dir}/dist/bench/servers/rxmcp.js`, '--transport', s.transport],
    { encoding: 'utf8', timeout: 120_000 },
  );
  return JSON.parse(out);
}
for (let round = 0; round < rounds; round++) {
  for (const s of scenarios) {
    const order = round % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    for (const build of order) {
      const m = once(build, s);
      ((runs[s.name] ??= { A: [], B: [] })[build]).push(m);
      process.stderr.write(`round ${round + 1} ${s.name} ${build}: ${m.callsPerSec.toFixed(0)} calls/s, ${m.cpuUsPerCall.toFixed(1)} µs/call\n`);
    }
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`A = ${builds.A}\nB = ${builds.B}\n${rounds} rounds, medians\n`);
console.log('| scenario | A calls/s | B calls/s | B/A | A CPU µs/call | B CPU µs/call | B/A |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const s of scenarios) {
  const r = runs[s.name];
  const [ac, bc] = [median(r.A.map((m) => m.callsPerSec)), median(r.B.map((m) => m.callsPerSec))];
  const [au, bu] = [median(r.A.map((m) => m.cpuUsPerCall)), median(r.B.map((m) => m.cpuUsPerCall))];
  console.log(`| ${s.name} | ${ac.toFixed(0)} | ${bc.toFixed(0)} | ${(bc / ac).toFixed(2)}x | ${au.toFixed(1)} | ${bu.toFixed(1)} | ${(bu / au).toFixed(2)}x |`);
}
