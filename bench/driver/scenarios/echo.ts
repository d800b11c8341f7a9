/**
 * Echo throughput: one connection (one session over HTTP), `concurrency`
 * calls outstanding until `calls` are done, after `warmup` unmeasured calls.
 */
import { keepAliveAgent } from '../http-client.js';
import { measureLoad } from '../load.js';
import type { Measurement } from '../measurement.js';
import { openClient } from '../open-client.js';
import type { Target } from '../targets.js';
import { callTool, ECHO_ARGS } from '../tool-call.js';
import { withServer } from './with-server.js';

export interface EchoOptions {
  readonly concurrency: number;
  readonly calls: number;
  readonly warmup: number;
  readonly maxMs: number;
}

export function runEcho(target: Target, options: EchoOptions): Promise<Measurement> {
  return withServer(target, async (server) => {
    const agent = keepAliveAgent(options.concurrency);
    try {
      const client = await openClient(target, server, agent);
      const measurement = await measureLoad(server.pid, () => callTool(client, 'echo', ECHO_ARGS), options);
      await client.close();
      return measurement;
    } finally {
      agent.destroy();
    }
  });
}
