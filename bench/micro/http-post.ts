/**
 * One Streamable HTTP POST at a time through rxmcp's HTTP handler, without
 * node:http or a socket: the handler (createHttpHandler) is given requests
 * whose body a framework already parsed (`req.body`) and responses that
 * only keep what is written. What rxmcp's own code costs per legacy
 * tools/call over HTTP (routing, the session, the pipeline, the SSE reply),
 * with none of the kernel's or node:http's noise, so a change of a
 * microsecond shows (issue 22's one-outstanding HTTP case; the network run
 * is `npm run bench`'s http-echo-c1 scenarios).
 *
 *   npm run build && node dist/bench/micro/http-post.js [--calls N] [--rounds N]
 *
 * CPU is process.cpuUsage (user+system) per call; KB is what V8's sampling
 * heap profiler saw allocated per call, garbage included. The median of the
 * rounds is reported.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createHttpHandler } from '../../transports/http/handler.js';
import { createBenchServer } from '../servers/bench-server.js';
import { BENCH_PROTOCOL_VERSION } from '../driver/handshake.js';
import { ECHO_ARGS } from '../driver/tool-call.js';
import { allocatedBytes } from './allocated-bytes.js';
import { option } from './option.js';

const CALLS = Number(option('--calls', '50000'));
const ROUNDS = Number(option('--rounds', '7'));

/** A request as node:http hands it over, its body already parsed by a framework. */
class ParsedRequest extends EventEmitter {
  readonly method = 'POST';
  readonly url = '/mcp';
  readonly readableEnded = false;
  readonly socket = { remoteAddress: '127.0.0.1' };
  constructor(
    readonly headers: IncomingHttpHeaders,
    readonly body: unknown,
  ) {
    super();
  }
}

/** A response that keeps its status, its headers and what was written, and says when it ended. */
class KeptResponse extends EventEmitter {
  headersSent = false;
  destroyed = false;
  readonly writableLength = 0;
  status = 0;
  headerList: unknown;
  text = '';
  constructor(private readonly ended: (res: KeptResponse) => void) {
    super();
  }
  writeHead(status: number, headers?: unknown): this {
    this.status = status;
    this.headerList = headers;
    this.headersSent = true;
    return this;
  }
  setHeader(): this {
    return this;
  }
  write(chunk: string, callback?: (error?: Error | null) => void): boolean {
    this.text += chunk;
    if (callback !== undefined) queueMicrotask(() => callback(null));
    return true;
  }
  end(chunk?: string): this {
    if (chunk !== undefined) this.text += chunk;
    this.ended(this);
    queueMicrotask(() => this.emit('close'));
    return this;
  }
  flushHeaders(): void {
    this.headersSent = true;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

const handler = createHttpHandler(createBenchServer(), {});

function post(headers: IncomingHttpHeaders, body: unknown): Promise<KeptResponse> {
  return new Promise((resolve) => {
    const res = new KeptResponse(resolve);
    handler(new ParsedRequest(headers, body) as unknown as IncomingMessage, res as unknown as ServerResponse);
  });
}

const base: IncomingHttpHeaders = { host: '127.0.0.1', accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const opened = await post(base, {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: BENCH_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'rxmcp-bench-micro', version: '1.0.0' } },
});
const sessionId = (opened.headerList as string[])[(opened.headerList as string[]).indexOf('Mcp-Session-Id') + 1]!;
const inSession = (): IncomingHttpHeaders => ({ ...base, 'content-length': '96', 'mcp-session-id': sessionId, 'mcp-protocol-version': BENCH_PROTOCOL_VERSION });
await post(inSession(), { jsonrpc: '2.0', method: 'notifications/initialized' });

async function calls(n: number): Promise<void> {
  for (let id = 1; id <= n; id++) {
    const res = await post(inSession(), { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: ECHO_ARGS } });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`);
  }
}

await calls(CALLS); // warm-up
const us: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const before = process.cpuUsage();
  await calls(CALLS);
  const used = process.cpuUsage(before);
  us.push((used.user + used.system) / CALLS);
}
const bytes = await allocatedBytes(() => calls(Math.min(CALLS, 20_000)));
const median = [...us].sort((a, b) => a - b)[Math.floor(us.length / 2)]!;
console.log(`legacy Streamable HTTP tools/call, one at a time, no socket: ${median.toFixed(2)} us/call (rounds ${us.map((u) => u.toFixed(2)).join(' ')}), ${(bytes / Math.min(CALLS, 20_000) / 1024).toFixed(2)} KB/call allocated`);
handler.close();
