/**
 * Call telemetry: around one request's reply, a `call_completed` event on
 * events$ and an OpenTelemetry span. Decided when the request is
 * routed: with nobody subscribed to events$ and no tracer provider
 * registered, the reply stream is returned untouched and the request
 * pays nothing more. Durations are on the server's scheduler. Observed, it
 * is a DirectSource around the reply stream: replyEach still opens
 * the call without an RxJS Subscriber in between.
 *
 * The handler runs inside the span's context, so spans it starts (and
 * instrumented libraries it calls) are the request span's children.
 */
import type { Unsubscribable } from 'rxjs';
import { principalField, type CallCompletedEvent, type CallOutcome } from '../lib/events.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { callTarget } from './call-target.js';
import { DirectSource, openSource, type DirectObserver, type ReplyStream } from './reply-stream.js';
import type { RequestScope, ServerCore } from './state/server-core.js';
import type { Span, Tracing } from './tracing.js';

type Reply = JsonRpcResponse | null;

/** UTF-8 bytes of a value's JSON; 0 for what JSON cannot hold (a direct caller may pass anything). */
function jsonBytes(value: unknown): number {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
  } catch {
    return 0;
  }
}

function outcomeOf(reply: Reply): { outcome: CallOutcome; errorCode?: number } {
  if (reply === null) return { outcome: 'pending' };
  if ('error' in reply) return { outcome: 'error', errorCode: reply.error.code };
  const result = reply.result as { isError?: unknown } | null;
  return { outcome: typeof result === 'object' && result !== null && result.isError === true ? 'tool_error' : 'ok' };
}

const NETWORK_TRANSPORT: Record<string, string> = { stdio: 'pipe', http: 'tcp', sse: 'tcp', ws: 'tcp' };

function startSpan(tracing: Tracing, tracer: NonNullable<ReturnType<Tracing['tracer']>>, scope: RequestScope, name: string | undefined) {
  const api = tracing.api;
  const lowCardinality = scope.method === 'tools/call' || scope.method === 'prompts/get';
  const parent = tracing.parentContext(scope.params?._meta);
  const span = tracer.startSpan(
    lowCardinality && name !== undefined ? `${scope.method} ${name}` : scope.method,
    { kind: api.SpanKind.SERVER, attributes: { 'mcp.method.name': scope.method, 'jsonrpc.request.id': String(scope.id) } },
    parent,
  );
  const transport = NETWORK_TRANSPORT[scope.transport];
  if (transport !== undefined) span.setAttribute('network.transport', transport);
  if (name !== undefined) {
    if (scope.method === 'tools/call') span.setAttributes({ 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool' });
    else if (scope.method === 'prompts/get') span.setAttribute('gen_ai.prompt.name', name);
    else if (scope.method.startsWith('resources/')) span.setAttribute('mcp.resource.uri', name);
  }
  return { span, context: api.trace.setSpan(parent, span) };
}

function endSpan(tracing: Tracing, span: Span, reply: Reply | undefined, outcome: CallOutcome): void {
  span.setAttribute('rxmcp.outcome', outcome);
  if (reply !== undefined && reply !== null && 'error' in reply) {
    span.setAttributes({ 'error.type': String(reply.error.code), 'rpc.response.status_code': String(reply.error.code) });
    span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message: reply.error.message });
  } else if (outcome === 'tool_error') {
    span.setAttribute('error.type', 'tool_error');
    span.setStatus({ code: tracing.api.SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * One observed request: its start, its span, and the one ending (reply,
 * completion without one, or unsubscription). It passes on what the reply
 * stream sends, which already keeps the DirectSource contract (one reply,
 * nothing after the end or the teardown), and is the call's teardown.
 */
class CallRecord {
  private ended = false;
  inner: Unsubscribable | undefined;
  readonly startedAt: number;
  readonly requestBytes: number;

  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly name: string | undefined,
    private readonly subscriber: DirectObserver<Reply>,
    private readonly span: Span | undefined,
    private readonly emit: boolean,
    message: unknown,
  ) {
    this.startedAt = core.options.scheduler.now();
    this.requestBytes = emit ? jsonBytes(message) : 0;
  }

  next(reply: Reply): void {
    this.end(reply);
    this.subscriber.next(reply);
  }

  error(error: unknown): void {
    this.end(undefined, 'error');
    this.subscriber.error(error);
  }

  complete(): void {
    this.end(undefined);
    this.subscriber.complete();
  }

  unsubscribe(): void {
    this.inner?.unsubscribe();
    this.end(undefined);
  }

  private end(reply: Reply | undefined, failed?: 'error'): void {
    if (this.ended) return;
    this.ended = true;
    const read = reply === undefined ? { outcome: failed ?? ('cancelled' as CallOutcome) } : outcomeOf(reply);
    if (this.span !== undefined) endSpan(this.core.tracing!, this.span, reply, read.outcome);
    if (!this.emit || !this.core.events.observed) return;
    const event: CallCompletedEvent = {
      type: 'call_completed',
      connId: this.scope.connId,
      transport: this.scope.transport,
      method: this.scope.method,
      name: this.name,
      requestId: this.scope.id,
      ...read,
      durationMs: this.core.options.scheduler.now() - this.startedAt,
      requestBytes: this.requestBytes,
      replyBytes: reply === undefined || reply === null ? 0 : jsonBytes(reply),
      ...principalField(this.scope.principal),
    };
    this.core.events.next(event);
  }
}

/** A request's reply stream, observed: each opening is one CallRecord around one opening of the stream. */
class ObservedCall extends DirectSource<Reply> {
  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly message: unknown,
    private readonly reply$: ReplyStream<Reply>,
    private readonly tracer: ReturnType<Tracing['tracer']>,
    private readonly emit: boolean,
  ) {
    super();
  }

  open(observer: DirectObserver<Reply>): Unsubscribable | undefined {
    try {
      return this.observe(observer);
    } catch (error) {
      // A tracer that throws while starting its span: the DirectSource contract makes it the stream's error.
      observer.error(error);
      return undefined;
    }
  }

  private observe(observer: DirectObserver<Reply>): CallRecord {
    const name = callTarget(this.scope.method, this.scope.params);
    const tracing = this.core.tracing;
    if (this.tracer === undefined || tracing === null) {
      const record = new CallRecord(this.core, this.scope, name, observer, undefined, this.emit, this.message);
      record.inner = openSource(this.reply$, record);
      return record;
    }
    const { span, context } = startSpan(tracing, this.tracer, this.scope, name);
    const record = new CallRecord(this.core, this.scope, name, observer, span, this.emit, this.message);
    record.inner = tracing.api.context.with(context, () => openSource(this.reply$, record));
    return record;
  }
}

/** The reply stream, observed when someone listens (events$ or a tracer provider); otherwise the same stream. */
export function withCallTelemetry(core: ServerCore, scope: RequestScope, message: unknown, reply$: ReplyStream<Reply>): ReplyStream<Reply> {
  const tracer = core.tracing?.tracer();
  const emit = core.events.observed;
  if (tracer === undefined && !emit) return reply$;
  return new ObservedCall(core, scope, message, reply$, tracer, emit);
}
