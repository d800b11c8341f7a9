/**
 * A minimal newline-JSON client over a child's stdin/stdout: no schema
 * checks, no SDK, so the driver costs as little as possible per call. A
 * stdout line that is not JSON is ignored (a server may not print junk, but
 * the driver is not the judge of that). `envelope`: every request carries
 * the 2026-07-28 `_meta` envelope, or its same-sized control (modern-meta.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { requestText, type Envelope } from './modern-meta.js';
import { PendingReplies, type JsonRpcReply, type RpcClient } from './rpc-client.js';

export class StdioClient implements RpcClient {
  private readonly pending = new PendingReplies();
  private buffered = '';

  constructor(
    private readonly input: Writable,
    output: Readable,
    private readonly envelope: Envelope = 'none',
  ) {
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => this.onData(chunk));
    output.once('close', () => this.pending.failAll(new Error('server stdout closed')));
    input.on('error', (error: Error) => this.pending.failAll(error));
  }

  request(method: string, params?: unknown): Promise<JsonRpcReply> {
    const { id, reply } = this.pending.open();
    this.input.write(`${requestText(id, method, params, this.envelope)}\n`);
    return reply;
  }

  async notify(method: string, params?: unknown): Promise<void> {
    this.input.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  async close(): Promise<void> {
    this.input.end();
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let newline = this.buffered.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      if (line.length > 0) {
        try {
          this.pending.settle(JSON.parse(line));
        } catch {
          // Not JSON: not an answer to us.
        }
      }
      newline = this.buffered.indexOf('\n');
    }
  }
}
