/**
 * ClientWire: the test client's end of an in-memory connection, and where
 * each message from the server goes. A reply settles the request waiting for
 * it; a server-to-client request (legacy) or an `input_required` round
 * (modern) becomes PendingInputs; progress and log lines are filed under the
 * request they belong to; a listen stream's messages go to its stream.
 *
 * Messages are JSON-copied both ways, as a wire would: a test sees what a
 * client would see, and nothing the test keeps is shared with the server.
 * What the client must answer on its own (a ping, an unknown request, an
 * `onInput` hook) runs a microtask later, never inside the server's emission.
 */
import type { Subscription } from 'rxjs';
import { APPROVAL_REQUEST_ID_PREFIX } from '../lib/approval.js';
import type { ConnId } from '../lib/context.js';
import { isLogLevel } from '../lib/log-levels.js';
import { APPROVAL_INPUT_KEY } from '../lib/mrtr/approval-form.js';
import type { JsonRpcId } from '../lib/protocol/jsonrpc.js';
import { MODERN_META, type Era } from '../lib/protocol/modern.js';
import { relatedRequestOf } from '../lib/protocol/related.js';
import type { MemoryConnection } from '../transports/memory.js';
import { CallAbandonedError } from './client-errors.js';
import type { ListenStream } from './listen-stream.js';
import { PendingInput, withdrawInput, type InputKind, type InputMethod, type PendingInputInit } from './pending-input.js';
import type { TestClock } from './test-clock.js';
import type { CallRecord, LogLine } from './tool-call.js';

/** A JSON-RPC message as the test reads it: parsed JSON. */
export type Message = Record<string, unknown>;

interface Waiter {
  readonly method: string;
  readonly resolve: (message: Message) => void;
  readonly reject: (error: unknown) => void;
}

const INPUT_METHODS: ReadonlySet<string> = new Set<InputMethod>(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** A microtask later, through a Promise: a framework's fake timers may replace queueMicrotask, never Promise jobs. */
function later(run: () => void): void {
  void Promise.resolve().then(run);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(method: InputMethod, approval: boolean): InputKind {
  if (approval) return 'approval';
  return method === 'elicitation/create' ? 'elicitation' : method === 'sampling/createMessage' ? 'sampling' : 'roots';
}

export class ClientWire {
  readonly timeline: { readonly at: number; readonly message: Message }[] = [];
  readonly logs: LogLine[] = [];
  /** Input requests waiting for the test, oldest first. */
  readonly inputs: PendingInput[] = [];
  /** The record of each request id sent, for progress and log lines. */
  readonly calls = new Map<JsonRpcId, CallRecord>();
  readonly streams = new Map<JsonRpcId, ListenStream>();
  readonly #waiting = new Map<JsonRpcId, Waiter>();
  readonly #subscription: Subscription;

  constructor(
    private readonly connection: MemoryConnection,
    private readonly clock: TestClock,
    private readonly era: Era,
    private readonly onInput: ((input: PendingInput) => void) | undefined,
  ) {
    this.#subscription = connection.messages$.subscribe((raw) => this.#receive(raw));
  }

  get connId(): ConnId {
    return this.connection.connId;
  }

  get waitingCount(): number {
    return this.#waiting.size;
  }

  write(message: Message): void {
    this.connection.send(JSON.parse(JSON.stringify(message)));
  }

  /** The reply to `id`, once it comes (register before writing the request: a reply can be synchronous). */
  expect(id: JsonRpcId, method: string): Promise<Message> {
    return new Promise((resolve, reject) => this.#waiting.set(id, { method, resolve, reject }));
  }

  /** Stops waiting for `id`: whatever comes for it later is only recorded. */
  abandon(id: JsonRpcId, error: unknown): void {
    const waiter = this.#waiting.get(id);
    this.#waiting.delete(id);
    waiter?.reject(error);
  }

  /**
   * A modern `input_required` result's questions as PendingInputs; resolves
   * with the answers once each has ended, or null when none was answered.
   */
  round(result: Message, requestId: JsonRpcId): Promise<Record<string, unknown> | null> {
    const requests = isObject(result.inputRequests) ? result.inputRequests : {};
    const keys = Object.keys(requests);
    if (keys.length === 0) return Promise.resolve({});
    return new Promise((resolve) => {
      const answers: Record<string, unknown> = {};
      let open = keys.length;
      for (const key of keys) {
        const request = isObject(requests[key]) ? requests[key] : {};
        const method = (INPUT_METHODS.has(String(request.method)) ? request.method : 'elicitation/create') as InputMethod;
        this.#ask({
          kind: kindOf(method, key === APPROVAL_INPUT_KEY),
          method,
          params: isObject(request.params) ? request.params : {},
          key,
          requestId,
          settle: (outcome) => {
            if (outcome.type === 'result') answers[key] = outcome.result;
            if (--open === 0) resolve(Object.keys(answers).length > 0 ? answers : null);
          },
        });
      }
    });
  }

  close(): void {
    this.#subscription.unsubscribe();
    this.connection.close();
    for (const id of [...this.#waiting.keys()]) this.abandon(id, new CallAbandonedError(this.#waiting.get(id)!.method, 'closed'));
    for (const input of [...this.inputs]) withdrawInput(input);
  }

  #receive(raw: object): void {
    const related = relatedRequestOf(raw);
    const message = JSON.parse(JSON.stringify(raw)) as Message;
    this.timeline.push({ at: this.clock.now(), message });
    const id = message.id as JsonRpcId | undefined;
    if (typeof message.method !== 'string') {
      if (id === undefined) return;
      const waiter = this.#waiting.get(id);
      this.#waiting.delete(id);
      waiter?.resolve(message);
    } else if (id !== undefined) {
      this.#serverRequest(id, message.method, isObject(message.params) ? message.params : {}, related);
    } else {
      this.#notification(message.method, isObject(message.params) ? message.params : {}, related);
    }
  }

  /** Legacy: the server asks the client something. */
  #serverRequest(id: JsonRpcId, method: string, params: Record<string, unknown>, related: JsonRpcId | undefined): void {
    if (method === 'ping' || !INPUT_METHODS.has(method)) {
      const answer = method === 'ping' ? { result: {} } : { error: { code: -32601, message: `the test client does not handle ${method}` } };
      later(() => this.write({ jsonrpc: '2.0', id, ...answer }));
      return;
    }
    this.#ask({
      kind: kindOf(method as InputMethod, method === 'elicitation/create' && String(id).startsWith(APPROVAL_REQUEST_ID_PREFIX)),
      method: method as InputMethod,
      params,
      key: String(id),
      requestId: related,
      settle: (outcome) => {
        if (outcome.type === 'result') this.write({ jsonrpc: '2.0', id, result: outcome.result });
        else if (outcome.type === 'error') this.write({ jsonrpc: '2.0', id, error: { code: outcome.code, message: outcome.message } });
      },
    });
  }

  #ask(init: Omit<PendingInputInit, 'at' | 'era'>): void {
    const input: PendingInput = new PendingInput({
      ...init,
      at: this.clock.now(),
      era: this.era,
      settle: (outcome) => {
        const at = this.inputs.indexOf(input);
        if (at >= 0) this.inputs.splice(at, 1);
        init.settle(outcome);
      },
    });
    this.inputs.push(input);
    const onInput = this.onInput;
    if (onInput !== undefined) later(() => onInput(input));
  }

  #notification(method: string, params: Record<string, unknown>, related: JsonRpcId | undefined): void {
    const meta = isObject(params._meta) ? params._meta : {};
    const stream = this.streams.get(meta[MODERN_META.subscriptionId] as JsonRpcId);
    if (stream !== undefined) {
      if (method === 'notifications/subscriptions/acknowledged') stream.acknowledged = isObject(params.notifications) ? params.notifications : {};
      else stream.notifications.push({ method, params, at: this.clock.now() });
      return;
    }
    const record = this.calls.get(related ?? (params.progressToken as JsonRpcId));
    if (method === 'notifications/progress' && typeof params.progress === 'number') {
      record?.progress.push({
        progress: params.progress,
        ...(typeof params.total === 'number' ? { total: params.total } : {}),
        ...(typeof params.message === 'string' ? { message: params.message } : {}),
        at: this.clock.now(),
      });
    } else if (method === 'notifications/message' && isLogLevel(params.level)) {
      const line: LogLine = { level: params.level, data: params.data, ...(typeof params.logger === 'string' ? { logger: params.logger } : {}), at: this.clock.now() };
      this.logs.push(line);
      record?.logs.push(line);
    } else if (method === 'notifications/cancelled' && this.era === 'legacy') {
      // The server took its request back (the call it served ended): the question is no longer open.
      const withdrawn = this.inputs.find((input) => input.key === String(params.requestId));
      if (withdrawn !== undefined) withdrawInput(withdrawn);
    }
  }
}
