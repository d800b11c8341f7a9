/**
 * A client Transport in the official SDK's shape over a `ws` WebSocket
 * (subprotocol "mcp", one JSON-RPC message per text frame). The SDK's own
 * WebSocketClientTransport needs a global WebSocket, which Node 20 lacks.
 */
import WebSocket from 'ws';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class WsClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private socket: WebSocket | undefined;

  constructor(private readonly url: string) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, 'mcp');
      this.socket = socket;
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        try {
          this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(data.toString())));
        } catch (error) {
          this.onerror?.(error as Error);
        }
      });
      socket.on('close', () => this.onclose?.());
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.socket?.send(JSON.stringify(message));
  }

  close(): Promise<void> {
    const socket = this.socket;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      socket.once('close', () => resolve());
      socket.close();
    });
  }
}
