/**
 * What every driver client is: JSON-RPC requests that resolve with the
 * server's response message (a result OR an error, both are answers), and
 * notifications. Ids are the client's own, so its pending map is the only
 * state; messages from the server that answer nothing of ours (its own
 * requests, notifications) are ignored.
 */
export type JsonRpcId = number | string;

export interface JsonRpcReply {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId | null;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

export interface RpcClient {
  request(method: string, params?: unknown): Promise<JsonRpcReply>;
  notify(method: string, params?: unknown): Promise<void>;
  close(): Promise<void>;
  /** Told the negotiated revision after initialize (HTTP sends it as MCP-Protocol-Version). */
  negotiated?(protocolVersion: string): void;
}

export function isReply(value: unknown): value is JsonRpcReply {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return 'id' in message && !('method' in message) && ('result' in message || 'error' in message);
}

/** The request ids in flight and who waits for each; shared by the stream-shaped clients (stdio, ws). */
export class PendingReplies {
  private nextId = 1;
  private readonly waiting = new Map<JsonRpcId, { resolve: (reply: JsonRpcReply) => void; reject: (error: Error) => void }>();

  open(): { id: number; reply: Promise<JsonRpcReply> } {
    const id = this.nextId++;
    const reply = new Promise<JsonRpcReply>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    return { id, reply };
  }

  /** Settles the waiter for a decoded message, if it is a reply to one of ours. */
  settle(message: unknown): void {
    if (!isReply(message) || message.id === null) return;
    const waiter = this.waiting.get(message.id);
    if (waiter === undefined) return;
    this.waiting.delete(message.id);
    waiter.resolve(message);
  }

  failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }

  get size(): number {
    return this.waiting.size;
  }
}
