/**
 * The in-memory transport: a client end wired straight into
 * `server.connect`, for tests and for embedding a server in the same
 * process. `MemoryClientTransport` has the shape of the official SDK's
 * client Transport, so `new Client(...).connect(transport)` works against it.
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { Principal } from '../lib/auth/principal.js';
import type { ConnId, TransportKind } from '../lib/context.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';
import type { McpServer } from '../streams/mcp-server.js';
import { mintConnId } from './conn-id.js';

/** Options of `connectInMemory`. */
export interface MemoryConnectionOptions {
  readonly connId?: ConnId | undefined;
  readonly transport?: TransportKind | undefined;
  /** The fairness key (ConnectOptions.peer); default: the connection is its own peer. */
  readonly peer?: string | undefined;
  /** The caller as the embedding application vouches for it (ConnectOptions.principal, from makePrincipal). */
  readonly principal?: Principal | undefined;
}

/** An in-memory connection: `send` a message, hear `messages$`, `close()`. */
export interface MemoryConnection {
  readonly connId: ConnId;
  /** Client to server. */
  send(message: unknown): void;
  /** Server to client: replies, pushes, broadcasts, as they happen. */
  readonly messages$: Observable<OutboundMessage>;
  /** The client goes away: the connection's exit. */
  close(): void;
}

/** Connects to the server in the same process, without a wire. */
export function connectInMemory(server: McpServer, options: MemoryConnectionOptions = {}): MemoryConnection {
  const connId = options.connId ?? mintConnId('memory');
  const inbound = new Subject<unknown>();
  const outbound = new Subject<OutboundMessage>();
  const subscription: Subscription = server
    .connect(connId, inbound, {
      transport: options.transport ?? 'memory',
      ...(options.peer === undefined ? {} : { peer: options.peer }),
      ...(options.principal === undefined ? {} : { principal: options.principal }),
    })
    .subscribe(outbound);
  return {
    connId,
    send: (message) => inbound.next(message),
    messages$: outbound.asObservable(),
    close: () => {
      subscription.unsubscribe();
      inbound.complete();
      outbound.complete();
    },
  };
}

type JsonMessage = Record<string, unknown>;

/** A client-side Transport in the official SDK's shape, backed by connectInMemory. */
export class MemoryClientTransport {
  /** Set by the SDK client: each message from the server. */
  onmessage?: (message: JsonMessage) => void;
  /** Set by the SDK client: the connection ended. */
  onclose?: () => void;
  /** Set by the SDK client: a transport error. */
  onerror?: (error: Error) => void;
  private connection: MemoryConnection | undefined;
  private messages: Subscription | undefined;

  constructor(
    private readonly server: McpServer,
    private readonly options: MemoryConnectionOptions = {},
  ) {}

  get connId(): ConnId | undefined {
    return this.connection?.connId;
  }

  /** Connects to the server in memory (the SDK client calls it). */
  async start(): Promise<void> {
    if (this.connection !== undefined) throw new Error('MemoryClientTransport already started');
    this.connection = connectInMemory(this.server, this.options);
    this.messages = this.connection.messages$.subscribe({
      // One macrotask per message, as separate reads off a wire: the SDK client runs notification
      // handlers a microtask late, so a progress notification and the reply right behind it in one
      // tick would otherwise reach it reply first.
      next: (message) => setImmediate(() => this.onmessage?.(message as unknown as JsonMessage)),
      complete: () => setImmediate(() => this.onclose?.()),
    });
  }

  /** Sends a message to the server. */
  async send(message: unknown): Promise<void> {
    if (this.connection === undefined) throw new Error('MemoryClientTransport not started');
    this.connection.send(JSON.parse(JSON.stringify(message)));
  }

  /** Ends the connection (the client going away), then calls `onclose`. */
  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.messages?.unsubscribe();
    connection?.close();
    this.onclose?.();
  }
}
