/**
 * Issue 21.5: rxmcp's option types under `exactOptionalPropertyTypes: true`,
 * TypeScript 7's `tsc --init` default. An application that passes its own
 * possibly-undefined settings straight through must compile, and so must the
 * servers of the README and the guides; the run time already took `undefined` as "the default".
 * Compiled against the built types (dist/), as a user's project is.
 */
import { expect, test } from 'vitest';
import { createServer } from '../../lib/index.js';
import { compileCodeBlocks, docCodeBlocks } from '../helpers/readme-blocks.js';
import { runTsc } from '../helpers/tsc.js';

const STRICT = { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };

test('an application passing T | undefined settings to createServer, sleep, serveStdio and createHttpHandler compiles, and a required prompt argument is a string', async () => {
  const run = await runTsc('test/types/fixtures/strict-optional/tsconfig.json');
  expect(run.diagnostics.map((d) => `${d.file}:${d.line}: ${d.code} ${d.message}`)).toEqual([]);
  expect(run.exitCode).toBe(0);
}, 120_000);

test("the servers of the README and the guides compile under exactOptionalPropertyTypes", async () => {
  const sections = [
    ['README.md', 'Install'],
    ['README.md', 'A first server'],
    ['docs/tools-and-handlers.md', 'API tour'],
    ['docs/authorization.md', 'Authorization'],
    ['docs/tools-and-handlers.md', 'Typed tools'],
    ['docs/reactive.md', 'Embedding in a reactive app'],
    ['docs/testing.md', 'Testing your server'],
  ] as const;
  const blocks = sections.flatMap(([file, heading]) => docCodeBlocks(file, heading));
  expect(blocks.length).toBeGreaterThanOrEqual(sections.length);
  expect(await compileCodeBlocks('strict-optional', blocks, STRICT)).toEqual([]);
}, 120_000);

test('every server option given as undefined is its default, at run time too', () => {
  const options = {
    registry: undefined, name: undefined, serverVersion: undefined, instructions: undefined, maxInFlight: undefined,
    maxInFlightPerConnection: undefined, maxInFlightPerPeer: undefined, callbackTimeoutMs: undefined, elicitationTimeoutMs: undefined,
    clientRequestTimeoutMs: undefined, pageSize: undefined, maxParkedElicitations: undefined, maxParkedElicitationsPerPeer: undefined,
    maxParkedElicitationsTotal: undefined, maxClientCapabilities: undefined, maxParkedCallBytes: undefined,
    maxSubscriptionsPerConnection: undefined, maxSubscriptionsTotal: undefined, maxSubscriptionUriLength: undefined,
    authorizer: undefined, readAuthorizer: undefined, authorizerSource: undefined, unknownToolReply: undefined, transport: undefined,
    scheduler: undefined, logger: undefined, middleware: undefined, cacheHints: undefined, requestStateKeys: undefined,
    approvalTtlMs: undefined, maxRequestStateBytes: undefined, approvalLedger: undefined, askWithoutElicitation: undefined,
    clusterPermits: undefined, exposeErrors: undefined, eventBus: undefined, maxListens: undefined, maxListensPerConnection: undefined,
  };
  const server = createServer(options);
  expect(server.stats()).toMatchObject({ inFlight: 0, connections: 0 });
  expect(server.authorizationConfigured()).toBe(false);
});
