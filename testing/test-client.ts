/**
 * TestClient: an in-memory MCP client of either era, for tests. It speaks
 * over the in-memory transport (transports/memory.ts) as a real client does
 * over a wire (every message JSON-copied both ways), and turns what a client
 * must otherwise script by hand into objects a test reads:
 *
 * - legacy (2025-11-25): `initialize` first; the server's elicitation,
 *   sampling and roots requests become PendingInputs, answered as JSON-RPC
 *   responses;
 * - modern (2026-07-28): the envelope on every request; an `input_required`
 *   round becomes PendingInputs, and the retry (with `inputResponses` and the
 *   echoed `requestState`) is sent once the test answered them.
 *
 * So `approve()`, `decline()` or `ignore()` on `await client.nextInput()`
 * read the same in both eras. Requests get ids 1, 2, 3... and a progress
 * token equal to their id, so progress and log lines are filed under the
 * call they belong to.
 */
import type { Principal } from '../lib/auth/principal.js';
import type { ConnId } from '../lib/context.js';
import type { LogLevel } from '../lib/log-levels.js';
import type { Era } from '../lib/protocol/modern.js';
import { LATEST_PROTOCOL_VERSION } from '../lib/protocol/versions.js';
import type { JsonRpcId } from '../lib/protocol/jsonrpc.js';
import type { McpServer } from '../streams/mcp-server.js';
import { connectInMemory } from '../transports/memory.js';
import { CallAbandonedError, RpcError } from './client-errors.js';
import { ClientWire, type Message } from './client-wire.js';
import { ListenStream, type ListenFilter } from './listen-stream.js';
import { modernEnvelope } from './modern-envelope.js';
import { PendingInput, withdrawInput } from './pending-input.js';
import type { TestClock } from './test-clock.js';
import { toolCall, type CallRecord, type LogLine, type ToolCall } from './tool-call.js';
import type { ToolResult } from './tool-result.js';

/** Options of a test client: declared `capabilities`, `logLevel`, `clientInfo`, connection id, peer, principal, and `onInput`. */
export interface TestClientOptions {
  /** What the client declares (legacy: at initialize; modern: on every request). Default `{}`: declare `{ elicitation: {} }` to be asked for approvals. */
  readonly capabilities?: Record<string, unknown>;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** The log lines to receive: legacy sends logging/setLevel after initialize; modern puts it in the envelope. */
  readonly logLevel?: LogLevel;
  readonly connId?: ConnId;
  /** The fairness key, as a network transport would set it (ConnectOptions.peer). */
  readonly peer?: string;
  /** The caller, as an authenticator would have verified it (from makePrincipal). */
  readonly principal?: Principal;
  /** Legacy: the version asked for at initialize (default the latest legacy revision). */
  readonly protocolVersion?: string;
  /** Called for each input request as it arrives (a microtask later): answer it there, or leave it to the test. */
  readonly onInput?: (input: PendingInput) => void;
}

/** One request as the client keeps it while it runs. */
interface LiveRequest extends CallRecord {
  readonly method: string;
  cancelled: boolean;
  /** Its final result or error is in: a cancel then sends nothing. */
  done: boolean;
}

const NO_PROGRESS_TOKEN = new Set(['initialize', 'subscriptions/listen', 'logging/setLevel']);

/** An in-memory client of either era: `callTool`, `request`, `notify`, `listen`, `nextInput`, and what it received (`messages`, `timeline`, `notifications`, `logs`). */
export class TestClient {
  readonly era: Era;
  readonly #wire: ClientWire;
  readonly #clock: TestClock;
  readonly #options: TestClientOptions;
  #logLevel: LogLevel | undefined;
  #nextId = 1;
  /** Public promises that reject when the client gives up on them: marked handled then, so an unawaited cancel is no unhandled rejection. */
  readonly #live = new Set<Promise<unknown>>();

  /** Connects a client of `era` to `server`; a legacy one has been initialized when this resolves. */
  static async connect(server: McpServer, clock: TestClock, era: Era, options: TestClientOptions = {}): Promise<TestClient> {
    const client = new TestClient(server, clock, era, options);
    if (era === 'legacy') await client.#initialize();
    return client;
  }

  private constructor(server: McpServer, clock: TestClock, era: Era, options: TestClientOptions) {
    this.era = era;
    this.#clock = clock;
    this.#options = options;
    this.#logLevel = options.logLevel;
    const connection = connectInMemory(server, {
      ...(options.connId === undefined ? {} : { connId: options.connId }),
      ...(options.peer === undefined ? {} : { peer: options.peer }),
      ...(options.principal === undefined ? {} : { principal: options.principal }),
    });
    this.#wire = new ClientWire(connection, clock, era, options.onInput);
  }

  get connId(): ConnId {
    return this.#wire.connId;
  }

  /** Everything the server sent, as JSON (what a wire carries), in order. */
  get messages(): readonly Message[] {
    return this.#wire.timeline.map((r) => r.message);
  }

  /** The same, each with the test clock's time it arrived at. */
  get timeline(): readonly { readonly at: number; readonly message: Message }[] {
    return this.#wire.timeline;
  }

  /** The notifications received (of `method`, when given); a legacy client's broadcasts included. */
  notifications(method?: string): Message[] {
    return this.messages.filter((m) => typeof m.method === 'string' && !('id' in m) && (method === undefined || m.method === method));
  }

  /** Every log line received (notifications/message), whichever request it came from. */
  get logs(): readonly LogLine[] {
    return this.#wire.logs;
  }

  /** The input requests waiting for the test, oldest first. */
  get inputs(): readonly PendingInput[] {
    return [...this.#wire.inputs];
  }

  /**
   * Lets the server run (the clock settles, time does not move), then the
   * oldest input request still waiting. Throws when there is none, rather
   * than wait for one that may never come.
   */
  async nextInput(): Promise<PendingInput> {
    await this.#clock.settle();
    const input = this.#wire.inputs[0];
    if (input === undefined) {
      throw new Error(`no input request is waiting for the ${this.era} client ${this.connId} at ${this.#clock.now()} ms (${this.#wire.waitingCount} request(s) without a reply yet)`);
    }
    return input;
  }

  /**
   * tools/call. Resolves with the result (a tool's failure is a result with
   * `isError`), rejects with RpcError for a JSON-RPC error. `S` types
   * `structuredContent`. The result needs the server to get there: when the
   * handler waits on the clock, advance it before awaiting the call.
   */
  callTool<S = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}, options: { readonly meta?: Record<string, unknown> } = {}): ToolCall<S> {
    const record = this.#record('tools/call');
    const params: Record<string, unknown> = { name, arguments: args };
    if (options.meta !== undefined) params._meta = options.meta;
    const result = this.#track(this.#exchange('tools/call', params, record)) as Promise<unknown> as Promise<ToolResult<S>>;
    return toolCall(result, record, (reason) => this.#cancel(record, reason, result));
  }

  /** Any request: resolves with its result (after any modern input rounds), rejects with RpcError. */
  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.#track(this.#exchange(method, params, this.#record(method)));
  }

  /** Sends a notification (with the modern envelope on a modern client). */
  notify(method: string, params: Record<string, unknown> = {}): void {
    this.#wire.write({ jsonrpc: '2.0', method, params: this.era === 'modern' ? { ...params, _meta: { ...this.#envelope(), ...(params._meta as object | undefined) } } : params });
  }

  /** Legacy: logging/setLevel; modern: the envelope's log level from the next request on. */
  async setLogLevel(level: LogLevel): Promise<void> {
    if (this.era === 'modern') this.#logLevel = level;
    else await this.request('logging/setLevel', { level });
  }

  /**
   * subscriptions/listen (modern only): resolves once the server has
   * acknowledged the stream, rejects with RpcError when it refuses.
   */
  async listen(filter: ListenFilter): Promise<ListenStream> {
    if (this.era !== 'modern') {
      throw new Error('subscriptions/listen is a 2026-07-28 method: use a modern client (a legacy one receives list changes as broadcasts, see notifications())');
    }
    const id = this.#nextId++;
    let refused: unknown;
    const reply = this.#wire.expect(id, 'subscriptions/listen').then((message) => this.#resultOf('subscriptions/listen', message));
    reply.catch((error: unknown) => {
      refused = error;
    });
    const stream = new ListenStream(id, reply, (reason) => this.notify('notifications/cancelled', { requestId: id, reason }));
    this.#wire.streams.set(id, stream);
    this.#wire.write({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: filter, _meta: this.#envelope() } });
    await this.#clock.settle();
    if (refused !== undefined) throw refused;
    if (stream.acknowledged === undefined) throw new Error(`subscriptions/listen ${id}: neither acknowledged nor refused`);
    return stream;
  }

  /** The client goes away: the server drops its parked calls and aborts its handlers; whatever still waits rejects with CallAbandonedError('closed'). */
  close(): void {
    for (const promise of this.#live) promise.catch(() => {});
    this.#wire.close();
  }

  async #initialize(): Promise<void> {
    const id = this.#nextId++;
    let answered: Message | undefined;
    const reply = this.#wire.expect(id, 'initialize');
    reply.then((message) => (answered = message), () => {});
    this.#wire.write({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: this.#options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        capabilities: this.#options.capabilities ?? {},
        clientInfo: this.#clientInfo(),
      },
    });
    await this.#clock.settle();
    if (answered === undefined) throw new Error('initialize was not answered');
    this.#resultOf('initialize', answered);
    this.notify('notifications/initialized');
    if (this.#logLevel !== undefined) await this.request('logging/setLevel', { level: this.#logLevel });
  }

  /** One request to its final result: a modern `input_required` round is answered by the test and retried. */
  async #exchange(method: string, params: Record<string, unknown>, record: LiveRequest): Promise<Record<string, unknown>> {
    try {
      return await this.#rounds(method, params, record);
    } finally {
      record.done = true;
    }
  }

  async #rounds(method: string, params: Record<string, unknown>, record: LiveRequest): Promise<Record<string, unknown>> {
    let retry: Record<string, unknown> = {};
    for (;;) {
      const id = this.#nextId++;
      record.requestIds.push(id);
      this.#wire.calls.set(id, record);
      const reply = this.#wire.expect(id, method);
      this.#wire.write({ jsonrpc: '2.0', id, method, params: this.#decorate(method, id, { ...params, ...retry }) });
      const result = this.#resultOf(method, await reply);
      if (this.era !== 'modern' || result.resultType !== 'input_required') return result;
      const answers = await this.#wire.round(result, id);
      if (record.cancelled) throw new CallAbandonedError(method, 'cancelled');
      if (answers === null) throw new CallAbandonedError(method, 'inputs-ignored', result);
      retry = { inputResponses: answers };
      if (typeof result.requestState === 'string') retry.requestState = result.requestState;
    }
  }

  /** Kept while it runs, so close() can mark it handled; forgotten once settled. */
  #track<T>(promise: Promise<T>): Promise<T> {
    this.#live.add(promise);
    const forget = () => void this.#live.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  #resultOf(method: string, message: Message): Record<string, unknown> {
    if ('error' in message) throw new RpcError(method, (message.error ?? {}) as Record<string, unknown>);
    return (message.result ?? {}) as Record<string, unknown>;
  }

  #decorate(method: string, id: JsonRpcId, params: Record<string, unknown>): Record<string, unknown> {
    const meta: Record<string, unknown> = this.era === 'modern' ? this.#envelope() : {};
    if (!NO_PROGRESS_TOKEN.has(method)) meta.progressToken = id;
    Object.assign(meta, params._meta as object | undefined);
    return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
  }

  #cancel(record: LiveRequest, reason: string | undefined, result: Promise<unknown>): void {
    if (record.cancelled || record.done) return;
    record.cancelled = true;
    result.catch(() => {});
    const id = record.requestIds.at(-1)!;
    this.notify('notifications/cancelled', reason === undefined ? { requestId: id } : { requestId: id, reason });
    this.#wire.abandon(id, new CallAbandonedError(record.method, 'cancelled'));
    for (const input of this.#wire.inputs) if (input.requestId !== undefined && record.requestIds.includes(input.requestId)) withdrawInput(input);
  }

  #record(method: string): LiveRequest {
    return { method, requestIds: [], progress: [], logs: [], cancelled: false, done: false };
  }

  #envelope(): Record<string, unknown> {
    return modernEnvelope({ capabilities: this.#options.capabilities ?? {}, clientInfo: this.#clientInfo(), logLevel: this.#logLevel });
  }

  #clientInfo(): { readonly name: string; readonly version: string } {
    return this.#options.clientInfo ?? { name: 'rxmcp-test-client', version: '1.0.0' };
  }
}
