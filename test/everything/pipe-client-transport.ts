/**
 * A client Transport in the official SDK's shape over two Node streams, one
 * JSON-RPC message per line: the client end of `serveStdio` wired through
 * PassThrough pipes, so the stdio transport is tested without a child
 * process.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

export class PipeClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(
    private readonly fromServer: Readable,
    private readonly toServer: Writable,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', this.onData);
    this.fromServer.on('end', this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fromServer.off('data', this.onData);
    this.fromServer.off('end', this.onEnd);
    this.toServer.end();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer) => {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  };

  private readonly onEnd = () => void this.close();
}
