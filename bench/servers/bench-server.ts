/**
 * The rxmcp server every benchmark measures, in a child process
 * (servers/rxmcp.ts) or in process (micro/eras.ts, micro/waiting-call.ts),
 * so their numbers are of the same server: tools `echo {text}` and
 * `sleep {ms}` (`timer(ms)`: a thousand sleeping calls hold timers, no
 * threads, no promises), authorization chosen (allowAll, a read authorizer)
 * so the network boot guards let HTTP and WebSocket start.
 */
import { map, timer } from 'rxjs';
import { allowAll, createServer, Registry, type McpServer } from 'rxmcp';
import { registerEcho, registerModernSizedEcho } from './echo-tool.js';

export interface BenchServerOptions {
  /** Sets both maxInFlight and maxInFlightPerConnection; the library defaults otherwise. */
  readonly maxInFlight?: number;
  /** echo answers with a modern result's bytes (the control of the modern scenarios, echo-tool.ts). */
  readonly modernSizedEcho?: boolean;
}

export function createBenchServer(options: BenchServerOptions = {}): McpServer {
  const registry = new Registry();
  if (options.modernSizedEcho === true) registerModernSizedEcho(registry);
  else registerEcho(registry);
  registry.registerTool({
    name: 'sleep',
    description: 'Waits ms milliseconds, then returns.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    handler: ({ ms }) => timer(Number(ms)).pipe(map(() => `slept ${String(ms)}`)),
  });
  const inFlight = options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight, maxInFlightPerConnection: options.maxInFlight };
  return createServer({
    name: 'rxmcp-bench',
    registry,
    authorizer: allowAll(),
    authorizerSource: 'configured',
    readAuthorizer: allowAll(),
    ...inFlight,
  });
}
