/**
 * A WebSocket client (subprotocol "mcp", one JSON-RPC message per text
 * frame). `connectWs` resolves once the socket is open.
 */
import { WebSocket } from 'ws';
import { PendingReplies, type JsonRpcReply, type RpcClient } from './rpc-client.js';

export class WsClient implements RpcClient {
  private readonly pending = new PendingReplies();

  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      try {
        this.pending.settle(JSON.parse(String(data)));
      } catch {
        // Not JSON: not an answer to us.
      }
    });
    socket.once('close', () => this.pending.failAll(new Error('socket closed')));
  }

  request(method: string, params?: unknown): Promise<JsonRpcReply> {
    const { id, reply } = this.pending.open();
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return reply;
  }

  async notify(method: string, params?: unknown): Promise<void> {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close(1000);
    });
  }
}

export function connectWs(url: string): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'mcp', { perMessageDeflate: false });
    socket.once('open', () => {
      socket.off('error', reject);
      socket.on('error', () => {});
      resolve(new WsClient(socket));
    });
    socket.once('error', reject);
  });
}
