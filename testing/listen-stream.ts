/**
 * ListenStream: one `subscriptions/listen` stream of a modern test client.
 * The server tags every message of a stream with its request id
 * (`_meta["io.modelcontextprotocol/subscriptionId"]`), so several streams on
 * one connection are read apart: the acknowledgement (the filter the server
 * honoured), then the change notifications, then, only if the server closes,
 * the request's one reply.
 */
import type { JsonRpcId } from '../lib/protocol/jsonrpc.js';

/** What a test client's `listen` asks to hear (the `subscriptions/listen` filter). */
export interface ListenFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
}

/** One notification a listen stream heard, with its virtual time. */
export interface ListenNotification {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly at: number;
}

/** A `subscriptions/listen` stream of a modern test client: what it heard (`notifications`, `methods`), and `close()`. */
export class ListenStream {
  readonly id: JsonRpcId;
  /** The subset of the filter the server honoured, from its acknowledgement. */
  acknowledged: ListenFilter | undefined;
  /** The change notifications so far (the acknowledgement not included). */
  readonly notifications: ListenNotification[] = [];
  /** The stream's reply: the server ended it (`server.close()`); rejects with RpcError on a refusal. */
  readonly result: Promise<Record<string, unknown>>;
  readonly #close: (reason: string) => void;

  constructor(id: JsonRpcId, result: Promise<Record<string, unknown>>, close: (reason: string) => void) {
    this.id = id;
    this.result = result;
    this.#close = close;
  }

  /** The methods received so far, in order: `['notifications/tools/list_changed', ...]`. */
  get methods(): string[] {
    return this.notifications.map((n) => n.method);
  }

  /** Ends the stream from the client's side (notifications/cancelled); the server sends nothing more on it. */
  close(reason = 'closed by the test'): void {
    this.#close(reason);
  }
}
