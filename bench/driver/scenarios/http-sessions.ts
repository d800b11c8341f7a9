/**
 * Many sessions at once over Streamable HTTP: `sessions` clients initialize
 * their own sessions all at once, then each makes one echo call, all at once.
 * calls/s and latency are of the call phase (200 calls over 200 live
 * sessions); the initialize phase is reported as its wall time and p99; CPU
 * per call covers both phases (it is the server's cost of one session and
 * its call).
 */
import { closedLoop } from '../closed-loop.js';
import { HttpClient, keepAliveAgent } from '../http-client.js';
import { initialize } from '../handshake.js';
import { measure, type Measurement } from '../measurement.js';
import { cpuSeconds, peakRssKb } from '../proc-stats.js';
import { percentile } from '../stats.js';
import type { Target } from '../targets.js';
import { callTool, ECHO_ARGS } from '../tool-call.js';
import { withServer } from './with-server.js';

export interface HttpSessionsOptions {
  readonly sessions: number;
  readonly warmup: number;
}

/** One step per client, each client used once: a closed loop over a list. */
function eachOnce<T>(items: readonly T[], step: (item: T) => Promise<void>) {
  let next = 0;
  return closedLoop(() => step(items[next++] as T), { concurrency: items.length, calls: items.length });
}

export function runHttpSessions(target: Target, options: HttpSessionsOptions): Promise<Measurement> {
  return withServer(target, async (server) => {
    const url = server.url;
    if (url === undefined) throw new Error('http sessions need a network server');
    const agent = keepAliveAgent(options.sessions);
    const newClients = (n: number) => Array.from({ length: n }, () => new HttpClient(url, agent));
    const echo = (client: HttpClient) => callTool(client, 'echo', ECHO_ARGS);
    try {
      const warm = newClients(options.warmup);
      const warmed = await closedLoop(
        async () => {
          const client = warm.pop() as HttpClient;
          await initialize(client);
          await echo(client);
        },
        { concurrency: 4, calls: options.warmup },
      );
      if (warmed.failed > 0) throw new Error(`warmup failed: ${warmed.firstError ?? 'unknown'}`);

      const before = cpuSeconds(server.pid);
      const clients = newClients(options.sessions);
      const init = await eachOnce(clients, initialize);
      const live = clients.filter((c) => c.session !== undefined);
      const calls = await eachOnce(live, echo);
      const after = cpuSeconds(server.pid);
      const merged = {
        ...calls,
        failed: calls.failed + (options.sessions - live.length),
        firstError: init.firstError ?? calls.firstError,
      };
      return measure(merged, { before, after }, peakRssKb(server.pid), {
        initWallMs: init.elapsedMs,
        initP99Ms: percentile(init.latenciesMs, 99),
      });
    } finally {
      agent.destroy();
    }
  });
}
