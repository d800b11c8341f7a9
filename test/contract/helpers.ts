/**
 * Shared fixtures for the contract tests: message builders, an in-memory
 * peer that records everything the server sends it, and a server factory on
 * a virtual clock that is never advanced, so no contract test can depend on
 * (or leave behind) a real timer.
 */
import { Subject, VirtualTimeScheduler, type Subscription } from 'rxjs';
import { isDeepStrictEqual } from 'node:util';
import { createServer, type McpServer, type OutboundMessage, type ServerOptions } from '../../lib/index.js';
import { connectInMemory, type MemoryConnection } from '../../transports/index.js';
import type { CallContext } from '../../lib/context.js';

/** Replies and pushes as the tests read them: loosely, since each assertion states the exact shape it expects. */
export type Message = any;

export function rpc(id: unknown, method: string, params?: unknown): Message {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function note(method: string, params?: unknown): Message {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export function answer(id: unknown, result: unknown): Message {
  return { jsonrpc: '2.0', id, result };
}

export function initialize(id: unknown = 'init', capabilities: Record<string, unknown> = {}): Message {
  return rpc(id, 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'test', version: '1' } });
}

export const ELICITING = { elicitation: {} };

/** Lets every pending Promise callback (and the microtasks they queue) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A server whose clock is virtual and never advanced unless the test flushes `scheduler`. */
export function makeServer(options: ServerOptions = {}): McpServer & { virtual: VirtualTimeScheduler } {
  const scheduler = new VirtualTimeScheduler();
  const server = createServer({ scheduler, ...options }) as McpServer & { virtual: VirtualTimeScheduler };
  server.virtual = scheduler;
  return server;
}

export function isResponse(message: Message): boolean {
  return !('method' in message) && ('result' in message || 'error' in message);
}

/** A connection made with connectInMemory that records what it receives. */
export class Peer {
  readonly received: Message[] = [];
  readonly connection: MemoryConnection;
  private readonly waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];

  constructor(server: McpServer, options: { connId?: string; transport?: any } = {}) {
    this.connection = connectInMemory(server, options);
    this.connection.messages$.subscribe((message) => {
      const m = message as Message;
      this.received.push(m);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(m)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(m);
        }
      }
    });
  }

  get connId(): string {
    return this.connection.connId;
  }

  send(message: unknown): void {
    this.connection.send(message);
  }

  /** The first message matching, already received or yet to come. */
  waitFor(match: (m: Message) => boolean): Promise<Message> {
    const found = this.received.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  responsesTo(id: unknown): Message[] {
    return this.received.filter((m) => isResponse(m) && isDeepStrictEqual(m.id, id));
  }

  /** Sends a request and resolves with its reply. */
  call(id: unknown, method: string, params?: unknown): Promise<Message> {
    const reply = this.waitFor((m) => isResponse(m) && isDeepStrictEqual(m.id, id));
    this.send(rpc(id, method, params));
    return reply;
  }

  async initialize(capabilities: Record<string, unknown> = {}): Promise<Message> {
    return this.call(`init-${Math.random()}`, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'test', version: '1' },
    });
  }

  elicitations(): Message[] {
    return this.received.filter((m) => m.method === 'elicitation/create');
  }

  notifications(method?: string): Message[] {
    return this.received.filter((m) => 'method' in m && !('id' in m) && (method === undefined || m.method === method));
  }

  close(): void {
    this.connection.close();
  }
}

/** A subscriber attached with server.subscribe, recording its messages. */
export function collect(server: McpServer, connId?: string, transport?: any): { messages: Message[]; subscription: Subscription } {
  const messages: Message[] = [];
  const subscription = server.subscribe((m: OutboundMessage) => messages.push(m as Message), connId, transport ? { transport } : {});
  return { messages, subscription };
}

/**
 * A tool handler that never answers until the test says so: each call gets
 * a Subject the test completes (or errors) by hand, and its context is kept.
 */
export function heldHandler() {
  const calls: { args: Record<string, unknown>; ctx: CallContext; result: Subject<unknown> }[] = [];
  const handler = (args: Record<string, unknown>, ctx: CallContext) => {
    const result = new Subject<unknown>();
    calls.push({ args, ctx, result });
    return result;
  };
  const finish = (index: number, value: unknown = 'done') => {
    const call = calls[index]!;
    call.result.next(value);
    call.result.complete();
  };
  return { handler, calls, finish };
}

export function textOf(reply: Message): string {
  return reply.result.content[0].text;
}

/** The deny's JSON text; `prompt` is there when the approval question could not be asked. */
export function denyText(tool: string, decision: 'deny' | 'ask', detail: string, prompt?: string): string {
  const body: Record<string, string> = { error: 'authorization_required', tool, decision, detail };
  if (prompt !== undefined) body.prompt = prompt;
  return JSON.stringify(body);
}

export function deniedResult(tool: string, decision: 'deny' | 'ask', detail: string, prompt?: string) {
  return { content: [{ type: 'text', text: denyText(tool, decision, detail, prompt) }], isError: true };
}

/** The detail of an ASK for a client that never advertised elicitation. */
export const CANNOT_ASK = 'client cannot be asked (no elicitation capability)';
/** The detail of an ASK for a connection with no live subscriber. */
export const NOT_CONNECTED = 'client cannot be asked (no live connection)';
