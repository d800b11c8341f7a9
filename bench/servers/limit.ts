/**
 * The ceiling, not MCP at all: what plain Node does for one JSON request in
 * and one JSON reply out, with no protocol, no validation, no pipeline.
 *
 *   node dist/bench/servers/limit.js --transport stdio|http [--port N]
 *
 * - stdio: newline-delimited JSON on stdin; each line is parsed and answered
 *   with one line of the same shape as an MCP echo result, carrying the
 *   request's id and its `params.arguments.text`. One write per reply, as a
 *   line-at-a-time server does. A request naming `sleep` with
 *   `arguments.ms` gets the same reply after a plain setTimeout, so the
 *   1000-outstanding scenario has a floor too.
 * - http: node:http, any path; a POST body of one JSON request gets the same
 *   reply as application/json (keep-alive on).
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announceReady, exitOnSignals, parseServerArgs } from './argv.js';

interface Parsed {
  readonly reply: string;
  /** How long to hold the reply: `arguments.ms` of a `sleep`, else 0. */
  readonly delayMs: number;
}

function replyTo(line: string): Parsed {
  let id: unknown = null;
  let text = '';
  let delayMs = 0;
  try {
    const request = JSON.parse(line) as { id?: unknown; params?: { name?: unknown; arguments?: { text?: unknown; ms?: unknown } } };
    id = request.id ?? null;
    const given = request.params?.arguments?.text;
    if (typeof given === 'string') text = given;
    const ms = request.params?.arguments?.ms;
    if (request.params?.name === 'sleep' && typeof ms === 'number' && ms > 0) delayMs = ms;
  } catch {
    // Shape stays fixed even for garbage: an id of null and an empty text.
  }
  return { reply: JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } }), delayMs };
}

function after(delayMs: number, send: () => void): void {
  if (delayMs === 0) send();
  else setTimeout(send, delayMs);
}

function serveStdio(): void {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim().length > 0) {
        const { reply, delayMs } = replyTo(line);
        after(delayMs, () => process.stdout.write(`${reply}\n`));
      }
      newline = pending.indexOf('\n');
    }
  });
  process.stdin.once('end', () => process.exit(0));
}

async function serveHttp(port: number): Promise<void> {
  const http = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const { reply, delayMs } = replyTo(Buffer.concat(chunks).toString('utf8'));
      after(delayMs, () => {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(reply) });
        response.end(reply);
      });
    });
  });
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  announceReady(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
}

exitOnSignals();
const args = parseServerArgs(process.argv.slice(2), ['stdio', 'http']);
if (args.transport === 'stdio') serveStdio();
else await serveHttp(args.port);
