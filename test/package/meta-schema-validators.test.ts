/**
 * Issue 22, a fresh server's start: the package's bundle checks a tool's
 * JSON Schema against its meta-schema with validators generated at build
 * time (scripts/meta-schema-validators.mjs), where the source lets ajv
 * compile the meta-schema at the first registration. The two must refuse the
 * same schemas with the same words. A child process imports `rxmcp` by name
 * (the bundle, as a user does) and registers every schema below; this
 * process registers them through the source; the outcomes must be equal.
 * The control: the bundle does carry the generated validators, so the
 * comparison is between two paths, not one path twice.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { REPO_ROOT } from '../helpers/tsc.js';

const run = promisify(execFile);

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** Valid and invalid schemas of both drafts, and the cases ajv words itself (a non-string or unknown `$schema`, a bad pattern). */
const SCHEMAS: readonly Record<string, unknown>[] = [
  { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] },
  { type: 'object', properties: { a: { type: 'nope' } } },
  { type: 'object', required: 'a' },
  { type: 'object', properties: { a: { minimum: '5' }, b: { maxLength: -1 } } },
  { type: 'object', additionalProperties: 'no', properties: 5 },
  { type: 'object', properties: { a: { items: [1] }, b: { enum: 'x' } } },
  { type: 'object', properties: { a: { type: ['string', 'string'] } } },
  { type: 'object', properties: { a: { enum: [{ x: 1 }, { x: 1 }], const: { y: [1, 2] } } } },
  { type: 'object', $defs: { d: { type: 'strng' } }, dependentRequired: { a: 'b' } },
  { type: 'object', properties: { a: { pattern: '(' } } },
  { $schema: 5, type: 'object' },
  { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
  { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { maxItems: 1.5 } } },
  { $schema: DRAFT_07, type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
  { $schema: DRAFT_07, type: 'object', properties: { a: { maxLength: -1 } }, required: 'a' },
  { $schema: DRAFT_07, type: 'object', definitions: { d: { type: 'nope' } }, dependencies: { a: 5 } },
];

/** What registering each schema as a tool's inputSchema gives: 'ok' or the error's message. */
const OUTCOMES = `
const outcomes = [];
for (const inputSchema of schemas) {
  try {
    new Registry().registerTool({ name: 't', inputSchema, handler: () => '' });
    outcomes.push('ok');
  } catch (error) {
    outcomes.push(error.message);
  }
}`;

function outcomesHere(): string[] {
  // The same loop as the child's, on the source's Registry.
  const outcomes = new Function('Registry', 'schemas', `${OUTCOMES}\nreturn outcomes;`) as (registry: typeof Registry, schemas: unknown) => string[];
  return outcomes(Registry, SCHEMAS);
}

async function outcomesOfTheBundle(): Promise<string[]> {
  const child = `const { Registry } = await import('rxmcp');\nconst schemas = ${JSON.stringify(SCHEMAS)};\n${OUTCOMES}\nprocess.stdout.write(JSON.stringify(outcomes));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', child], { cwd: REPO_ROOT, env: { ...process.env, RXMCP_LOG_LEVEL: 'silent' } });
  return JSON.parse(stdout) as string[];
}

beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'bundle', 'lib', 'index.js'))) throw new Error('dist/bundle is missing: run `npm run build` first (npm test does)');
});

describe('the meta-schema check, bundled and from the source', () => {
  test('the bundle carries the validators generated at build time, for both drafts', () => {
    const chunks = join(REPO_ROOT, 'dist', 'bundle', 'chunks');
    const text = readdirSync(chunks)
      .map((file) => readFileSync(join(chunks, file), 'utf8'))
      .join('\n');
    // The meta-schemas' own text, which the generated code embeds and the library's source never holds.
    expect(text).toMatch(/"\$id":\s*"https:\/\/json-schema\.org\/draft\/2020-12\/schema"/);
    expect(text).toMatch(/"\$id":\s*"http:\/\/json-schema\.org\/draft-07\/schema#"/);
  });

  test('refuse the same schemas with the same words', async () => {
    const here = outcomesHere();
    // The corpus is not vacuous: it holds schemas taken and schemas refused for several reasons.
    expect(here.filter((outcome) => outcome === 'ok').length).toBeGreaterThanOrEqual(3);
    expect(here.filter((outcome) => outcome.includes('schema is invalid: ')).length).toBeGreaterThanOrEqual(8);
    expect(here.some((outcome) => outcome.includes('no schema with key or ref'))).toBe(true);
    expect(await outcomesOfTheBundle()).toStrictEqual(here);
  });
});
