/**
 * createTestServer: a server on a TestClock, and test clients of either era
 * connected to it in memory. Give it the server's options (the clock becomes
 * the `scheduler`), or a function that builds the server your application
 * builds, handed the clock to pass as its scheduler. Unless the options say
 * otherwise, modern requestState is sealed with a random key of this server's.
 *
 *   const { clock, client } = createTestServer({ registry, callbackTimeoutMs: 1000 });
 *   const { clock, client } = createTestServer((clock) => buildMyServer({ scheduler: clock }));
 */
import { randomBytes } from 'node:crypto';
import type { ServerOptions } from '../lib/options.js';
import type { Era } from '../lib/protocol/modern.js';
import { createServer, type McpServer } from '../streams/mcp-server.js';
import { TestClock, type TestClockOptions } from './test-clock.js';
import { TestClient, type TestClientOptions } from './test-client.js';

/** Options of `createTestServer`: the server's options without `scheduler` (the test clock is it), plus `clock`, a `TestClock` or its options. */
export interface TestServerOptions extends Omit<ServerOptions, 'scheduler'> {
  /** The clock, or its options (default: a new TestClock at 0 ms). */
  readonly clock?: TestClock | TestClockOptions;
}

/** What `createTestServer` returns: the server, its clock, `client(era)` to connect test clients, and `close()`. */
export interface TestServer {
  readonly server: McpServer;
  readonly clock: TestClock;
  /** A client of `era` connected in memory; a legacy one is initialized when this resolves. */
  client(era: Era, options?: TestClientOptions): Promise<TestClient>;
  /** Closes every client made here, then the server (`server.close()`). */
  close(): void;
}

/** Your server on a `TestClock`, with in-memory clients of both eras. Pass the server options, or a function building your application's server on the given clock. */
export function createTestServer(options?: TestServerOptions): TestServer;
/** Your application's server, built by `build` on the given `TestClock` (pass it as the server's `scheduler`), with in-memory clients of both eras. */
export function createTestServer(build: (clock: TestClock) => McpServer, options?: { readonly clock?: TestClock | TestClockOptions }): TestServer;
export function createTestServer(
  setup: TestServerOptions | ((clock: TestClock) => McpServer) = {},
  buildOptions: { readonly clock?: TestClock | TestClockOptions } = {},
): TestServer {
  const given = typeof setup === 'function' ? buildOptions.clock : setup.clock;
  const clock = given instanceof TestClock ? given : new TestClock(given);
  let server: McpServer;
  if (typeof setup === 'function') {
    server = setup(clock);
    if (server.scheduler !== clock) {
      throw new Error("createTestServer(build): the server's scheduler is not the test clock; build it with `scheduler: clock` (the argument build is given)");
    }
  } else {
    if ((setup as ServerOptions).scheduler !== undefined) throw new Error('createTestServer: the test clock is the scheduler; pass `clock` (a TestClock or its options) instead of `scheduler`');
    const { clock: _clock, ...serverOptions } = setup;
    // One server in one process: a key of its own, so modern tests are not told (every time) to configure one.
    server = createServer({ requestStateKeys: [randomBytes(32)], ...serverOptions, scheduler: clock });
  }
  const clients: TestClient[] = [];
  return {
    server,
    clock,
    async client(era, clientOptions) {
      const client = await TestClient.connect(server, clock, era, clientOptions);
      clients.push(client);
      return client;
    },
    close() {
      for (const client of clients.splice(0)) client.close();
      server.close();
    },
  };
}
