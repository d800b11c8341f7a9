// The verdict on one run of the conformance suite, measured against the
// expected-failures list (conformance/expected-failures.txt).
//
//   node scripts/conformance-verdict.mjs RUN SUITE_OUTPUT RESULTS_DIR EXPECTED_FILE
//
// RUN names the run in the list (e.g. "0.2-all"). SUITE_OUTPUT is what the
// suite printed; its "=== SUMMARY ===" has one "✓ name: ..." or "✗ name: ..."
// line per scenario, and a requirements run then lists the scenarios it ran
// without scoring ("Not scored for ...: ..." followed by "  ✗ name (why)").
// RESULTS_DIR is the suite's -o directory (checks.json per scenario, read for
// the warning count).
//
// Scenarios that must really run (NOT_SKIPPABLE): an extension scenario reports every
// check SKIPPED when the server does not declare the extension, which the summary
// counts as a pass. For these, a run that has them fails when any of their checks
// is SKIPPED (read from checks.json), and a run listed for them fails when it
// lacks them: the Skills scenarios pass because rxmcp serves Skills, not because
// the suite found nothing to check.
//
// Prints one line, "conformance RUN: P passed, F failed (W warnings)", with
// the unscored counts for a requirements run and the expected-failure count,
// then one line per surprise. Exit 1 on an unexpected failure, an unexpected
// pass (a listed scenario that now passes: take it off the list), a list
// entry naming a scenario this run did not run, or a summary that cannot be
// read; 0 otherwise.
import fs from 'node:fs';
import path from 'node:path';

const [run, outputFile, resultsDir, expectedFile] = process.argv.slice(2);
if (!run || !outputFile || !resultsDir || !expectedFile) {
  console.error('usage: conformance-verdict.mjs RUN SUITE_OUTPUT RESULTS_DIR EXPECTED_FILE');
  process.exit(2);
}

/** run -> scenario -> reason, from "RUN SCENARIO REASON..." lines ('#' starts a comment line). */
function readExpected(file) {
  const byRun = new Map();
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(\S+)\s+(\S+)\s+(\S.*)$/.exec(line);
    if (!match) throw new Error(`${file}:${index + 1}: expected "RUN SCENARIO REASON", got ${JSON.stringify(raw)}`);
    const [, listRun, scenario, reason] = match;
    if (!byRun.has(listRun)) byRun.set(listRun, new Map());
    const scenarios = byRun.get(listRun);
    if (scenarios.has(scenario)) throw new Error(`${file}:${index + 1}: ${listRun} ${scenario} is listed twice`);
    scenarios.set(scenario, reason);
  });
  return byRun;
}

/** The scenarios of the summary: name -> { passed, scored }. */
function readSummary(text) {
  const start = text.indexOf('=== SUMMARY ===');
  if (start < 0) return undefined;
  const scenarios = new Map();
  let scored = true;
  for (const line of text.slice(start).split('\n')) {
    if (/^Not scored for /.test(line)) {
      scored = false;
      continue;
    }
    const scoredLine = /^([✓✗]) ([^:\s]+): /.exec(line);
    if (scoredLine) {
      scenarios.set(scoredLine[2], { passed: scoredLine[1] === '✓', scored: true });
      continue;
    }
    const unscoredLine = /^\s+([✓✗]) (\S+)/.exec(line);
    if (!scored && unscoredLine) scenarios.set(unscoredLine[2], { passed: unscoredLine[1] === '✓', scored: false });
  }
  return scenarios;
}

function countWarnings(dir) {
  let warnings = 0;
  for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const file = path.join(dir, entry, 'checks.json');
    if (fs.existsSync(file)) warnings += JSON.parse(fs.readFileSync(file, 'utf8')).filter((c) => c.status === 'WARNING').length;
  }
  return warnings;
}

/** Scenario -> the runs that must have it; a SKIPPED check of it fails any run that has it. */
const NOT_SKIPPABLE = new Map([
  ['sep-2640-skills-enumeration', ['0.2-all']],
  ['sep-2640-skills-directory', ['0.2-all']],
  ['sep-2640-skills-manifest', ['0.2-all']],
]);

/** The checks of one scenario's result directory (server-SCENARIO-TIMESTAMP/checks.json); undefined when there is none. */
function scenarioChecks(dir, scenario) {
  if (!fs.existsSync(dir)) return undefined;
  const entry = fs.readdirSync(dir).find((name) => name.startsWith(`server-${scenario}-`) && /\d{4}-\d{2}-\d{2}T/.test(name.slice(`server-${scenario}-`.length)));
  const file = entry === undefined ? undefined : path.join(dir, entry, 'checks.json');
  return file !== undefined && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
}

let expected;
try {
  expected = readExpected(expectedFile).get(run) ?? new Map();
} catch (error) {
  console.error(`conformance ${run}: ${error.message}`);
  process.exit(1);
}
const scenarios = readSummary(fs.readFileSync(outputFile, 'utf8'));
if (scenarios === undefined || scenarios.size === 0) {
  console.log(`conformance ${run}: no summary in the suite's output`);
  process.exit(1);
}

const surprises = [];
const count = { passed: 0, failed: 0, unscoredPassed: 0, unscoredFailed: 0, expectedFailed: 0 };
for (const [name, { passed, scored }] of scenarios) {
  if (scored) count[passed ? 'passed' : 'failed'] += 1;
  else count[passed ? 'unscoredPassed' : 'unscoredFailed'] += 1;
  const reason = expected.get(name);
  if (!passed && reason === undefined) surprises.push(`UNEXPECTED FAILURE: ${name}`);
  if (passed && reason !== undefined) surprises.push(`UNEXPECTED PASS: ${name} (listed: ${reason}); take it off the list`);
  if (!passed && reason !== undefined) count.expectedFailed += 1;
}
for (const [name, runs] of NOT_SKIPPABLE) {
  if (!scenarios.has(name)) {
    if (runs.includes(run)) surprises.push(`MISSING: ${name} must run in ${run}`);
    continue;
  }
  const checks = scenarioChecks(resultsDir, name);
  if (checks === undefined) {
    surprises.push(`NO CHECKS: ${name} has no checks.json in ${resultsDir}, so whether it was skipped cannot be told`);
    continue;
  }
  const skipped = checks.filter((c) => c.status === 'SKIPPED').map((c) => c.id);
  if (checks.length === 0 || skipped.length > 0) {
    surprises.push(`SKIPPED: ${name} must pass, not be skipped (${skipped.length === 0 ? 'no checks' : skipped.join(', ')})`);
  }
}
for (const name of expected.keys()) {
  if (!scenarios.has(name)) surprises.push(`STALE ENTRY: ${name} is listed for ${run} but the run has no such scenario`);
}

const unscored = count.unscoredPassed + count.unscoredFailed;
const parts = [`${count.passed} passed, ${count.failed} failed (${countWarnings(resultsDir)} warnings)`];
if (unscored > 0) parts.push(`unscored: ${count.unscoredPassed} passed, ${count.unscoredFailed} failed`);
parts.push(`${count.expectedFailed} expected failures, ${surprises.length} surprises`);
console.log(`conformance ${run}: ${parts.join('; ')}`);
for (const surprise of surprises) console.log(`  ${surprise}`);
process.exit(surprises.length === 0 ? 0 : 1);
