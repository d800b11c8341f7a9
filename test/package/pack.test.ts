/**
 * What is published is what is tested: `npm pack` the library (dist/ must be
 * built; npm test does), check what the tarball holds, install it into a
 * temporary project, type-check a strict NodeNext server against it, and run
 * that server over stdio with the official SDK client; and a user's test of
 * that kind of server through rxmcp/testing, type-checked the same way and
 * run under node:test.
 *
 * "Install" without the network: the tarball is unpacked as
 * node_modules/rxmcp, and only the dependencies its package.json declares are
 * linked from this repository's node_modules (where `npm ci` put the locked
 * versions), so an import of anything undeclared fails here as it would for
 * a user. @opentelemetry/api is not linked: the optional peer is absent.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Packed {
  readonly filename: string;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

let work: string;
let consumer: string;
let packed: Packed;
let manifest: { dependencies: Record<string, string>; repository: { url: string }; exports: Record<string, unknown>; bin: { rxmcp: string } };

const CONSUMER_SERVER = `
import { createServer, Registry, ToolError, type CallCompletedEvent, type ServerEvent, type ServerOptions } from 'rxmcp';
import { serveStdio } from 'rxmcp/transports';

const registry = new Registry()
  .registerTool({
    name: 'add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }) => String((a as number) + (b as number)),
  })
  .registerTool({ name: 'refuse', handler: () => { throw new ToolError('not today'); } })
  .registerTool({ name: 'crash', handler: () => { throw new Error('consumer crash'); } });

const options: ServerOptions = { registry, name: 'consumer', serverVersion: '1.2.3' };
// The types are real, not any: each of these is an error under strict.
// @ts-expect-error maxInFlight is a number
const wrong: ServerOptions = { maxInFlight: 'many' };
void wrong;
const server = createServer(options);
const durations: number[] = [];
server.events$.subscribe((event: ServerEvent) => {
  if (event.type === 'call_completed') {
    const done: CallCompletedEvent = event;
    durations.push(done.durationMs);
  }
});
await serveStdio(server).closed;
`;

const CONSUMER_TEST = `
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'rxmcp';
import { createTestServer, expectDenied, textOf, type PendingInput, type ToolCall } from 'rxmcp/testing';

test('an async tool on the virtual clock, both eras, from the tarball', async () => {
  const registry = new Registry().registerTool({
    name: 'later',
    handler: async (_args, ctx) => {
      await ctx.sleep(250);
      return 'at ' + String(ctx.scheduler.now());
    },
  });
  const { client, clock } = createTestServer({ registry, callbackTimeoutMs: 1000 });
  for (const era of ['legacy', 'modern'] as const) {
    const c = await client(era);
    const call: ToolCall = c.callTool('later');
    await clock.advance(250);
    assert.equal(textOf(await call), 'at ' + String(clock.now()));
  }
});

test('an approval that times out', async () => {
  const registry = new Registry().registerTool({ name: 'wipe', sensitive: true, handler: () => 'wiped' });
  const { client, clock } = createTestServer({ registry, authorizer: () => ({ ask: 'Wipe?' }), elicitationTimeoutMs: 1000 });
  const c = await client('legacy', { capabilities: { elicitation: {} } });
  const call = c.callTool('wipe');
  const ask: PendingInput = await c.nextInput();
  await clock.advance(1000);
  ask.approve();
  assert.equal(expectDenied(await call, 'timed out').tool, 'wipe');
});
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    noEmitOnError: true,
    types: ['node'],
    outDir: 'out',
  },
  files: ['server.ts', 'server.test.ts'],
};

/** Links node_modules/<name> in `project` to this repository's copy. */
function linkFromRoot(project: string, name: string): void {
  const link = join(project, 'node_modules', name);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'lib', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  work = mkdtempSync(join(tmpdir(), 'rxmcp-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, timeout: 30_000 });
  packed = (JSON.parse(stdout) as Packed[])[0]!;
  consumer = join(work, 'consumer');
  const installed = join(consumer, 'node_modules', 'rxmcp');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', join(work, packed.filename), '-C', installed, '--strip-components=1'], { timeout: 15_000 });
  manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  for (const name of Object.keys(manifest.dependencies)) linkFromRoot(consumer, name);
  linkFromRoot(consumer, '@types/node');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(consumer, 'server.ts'), CONSUMER_SERVER);
  writeFileSync(join(consumer, 'server.test.ts'), CONSUMER_TEST);
}, 60_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  test('holds the library, the CLI, the LICENSE and the README, and no source maps, benchmarks or demo servers', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'esm-only.cjs', 'dist/esm-only/index.d.cts', 'dist/bundle/lib/index.js', 'dist/lib/index.d.ts', 'dist/bundle/transports/index.js', 'dist/transports/index.d.ts', 'dist/bundle/testing/index.js', 'dist/testing/index.d.ts', 'dist/bundle/cluster/redis/index.js', 'dist/cluster/redis/index.d.ts', 'dist/bundle/examples/cli/rxmcp.js']) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((p) => p.endsWith('.map'))).toStrictEqual([]);
    expect(paths.filter((p) => /^dist\/(bundle\/)?(bench|test)\/|^dist\/(bundle\/)?examples\/(?!cli\/)/.test(p))).toStrictEqual([]);
    // The code is the bundle only: the modules tsc wrote one by one stay out, their typings stay in.
    expect(paths.filter((p) => p.endsWith('.js') && !p.startsWith('dist/bundle/'))).toStrictEqual([]);
    expect(readFileSync(join(consumer, 'node_modules', 'rxmcp', 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 rxmcp contributors/);
    // Only the library (the bundled JS about 712 kB, .d.ts about 604 kB with every export's doc comment,
    // the README's front page about 14 kB, the guides in docs/ staying in the repository: two eras, auth,
    // middleware, typed tools, bindings and observable resources, the framework adapters, the Redis cluster
    // stores, tasks, MCP Apps, the test kit, the CommonJS typings stubs; about 1.34 MB in all on 2026-12-05):
    // no maps, benchmarks or demos, each of which is hundreds of kB; a jump past this is a leak. The README's
    // "The package" states the size, and test/package/readme-facts.test.ts holds it to npm pack's.
    expect(packed.unpackedSize).toBeGreaterThan(1_100_000);
    expect(packed.unpackedSize).toBeLessThan(1_600_000);
  });

  test('every README link resolves: relative ones to a file in the tarball, repository ones to a file in this repository', () => {
    const paths = new Set(packed.files.map((f) => f.path));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const repo = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) {
      if (target.startsWith('#') || /^https?:\/\//.test(target) && !target.startsWith(repo)) continue;
      if (target.startsWith(repo)) {
        const inRepo = target.slice(repo.length).replace(/^\/(blob|tree)\/main\//, '').replace(/#.*$/, '');
        if (inRepo === '' || inRepo === target.slice(repo.length)) continue; // the repository itself
        expect(existsSync(join(ROOT, inRepo)), `${target} names ${inRepo}, not in this repository`).toBe(true);
      } else {
        expect(paths.has(target.replace(/#.*$/, '')), `${target} is not in the tarball`).toBe(true);
      }
    }
  });

  test('require() of an entry point fails with a message that says rxmcp is ESM only', async () => {
    for (const entry of ['rxmcp', 'rxmcp/transports', 'rxmcp/testing']) {
      const failure = await run(process.execPath, ['-e', `require(${JSON.stringify(entry)})`], { cwd: consumer, timeout: 15_000 }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain('ES module only');
      expect(failure?.stderr).toContain("import { createServer } from 'rxmcp'");
    }
  });
});

describe('a strict NodeNext project using the tarball', () => {
  test('type-checks and builds against the published .d.ts (skipLibCheck off, no @opentelemetry/api)', async () => {
    expect(existsSync(join(consumer, 'node_modules', '@opentelemetry'))).toBe(false);
    const result = await run(process.execPath, [TSC, '-p', consumer], { cwd: consumer, timeout: 45_000 }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
    expect(existsSync(join(consumer, 'out', 'server.js'))).toBe(true);
    expect(existsSync(join(consumer, 'out', 'server.test.js'))).toBe(true);
  }, 60_000);

  test('its rxmcp/testing test passes under node:test', async () => {
    const outcome = await run(process.execPath, ['--test', '--test-reporter=tap', 'out/server.test.js'], {
      cwd: consumer,
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '', RXMCP_LOG_LEVEL: 'silent' },
    }).then(
      ({ stdout }) => stdout,
      (error: { stdout: string; stderr: string }) => `${error.stdout}\n${error.stderr}`,
    );
    expect(outcome).toMatch(/^# pass 2$/m);
    expect(outcome).toMatch(/^# fail 0$/m);
  }, 45_000);

  test('runs over stdio with the official SDK client: serverInfo, a call, a ToolError, and a crash logged on stderr', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['out/server.js'],
      cwd: consumer,
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += String(chunk)));
    const crashLogged = new Promise<void>((resolve) => transport.stderr?.on('data', () => stderr.includes('consumer crash') && resolve()));
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: 'consumer', version: '1.2.3' });
      expect((await client.listTools()).tools.map((t) => t.name)).toStrictEqual(['add', 'refuse', 'crash']);
      expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: 'text', text: '5' }] });
      expect(await client.callTool({ name: 'refuse', arguments: {} })).toMatchObject({ isError: true, content: [{ text: 'not today' }] });
      expect(await client.callTool({ name: 'crash', arguments: {} })).toMatchObject({ isError: true, content: [{ text: 'Error: callback_crashed' }] });
      await crashLogged;
      const line = JSON.parse(stderr.split('\n').find((l) => l.includes('consumer crash'))!) as Record<string, any>;
      expect(line).toMatchObject({ level: 50, method: 'tools/call', tool: 'crash', err: { message: 'consumer crash' } });
    } catch (error) {
      throw new Error(`${(error as Error).message}; the server's stderr:\n${stderr}`);
    } finally {
      await client.close();
    }
  }, 30_000);

  test('the rxmcp bin runs from the installed package', async () => {
    // The file package.json's bin names, as npm links it.
    const { stdout } = await run(process.execPath, [join(consumer, 'node_modules', 'rxmcp', manifest.bin.rxmcp), '--help'], {
      cwd: consumer,
      timeout: 15_000,
    });
    expect(stdout).toContain('rxmcp serve <module>');
  });
});
