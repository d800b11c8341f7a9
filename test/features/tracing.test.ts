/**
 * OpenTelemetry through @opentelemetry/api (a devDependency here, an
 * optional peer for users): a SERVER span per request once a tracer provider
 * is registered, a child of the caller's span when `_meta.traceparent` says
 * so, with the handler running inside it; nothing while no provider is
 * registered. The provider and the context manager are tiny in-memory ones
 * written against the API.
 */
import { randomBytes } from 'node:crypto';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Context,
  type ContextManager,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { createTracing } from '../../streams/tracing.js';
import { makeServer, rpc } from '../contract/helpers.js';

class RecordedSpan implements Span {
  readonly attributes: Attributes = {};
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  ends = 0;
  readonly #context: SpanContext;

  constructor(
    public name: string,
    readonly kind: SpanKind | undefined,
    readonly parent: SpanContext | undefined,
    attributes: Attributes | undefined,
  ) {
    Object.assign(this.attributes, attributes);
    this.#context = {
      traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      traceFlags: 1,
    };
  }

  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: Attributes[string]): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(): void {
    this.ends += 1;
  }
  isRecording(): boolean {
    return this.ends === 0;
  }
  recordException(): void {}
}

class RecordingProvider implements TracerProvider {
  readonly spans: RecordedSpan[] = [];
  tracers = 0;

  getTracer(): Tracer {
    this.tracers += 1;
    const spans = this.spans;
    const startSpan = (name: string, options: SpanOptions = {}, parentContext: Context = context.active()): Span => {
      const span = new RecordedSpan(name, options.kind, trace.getSpanContext(parentContext), options.attributes);
      spans.push(span);
      return span;
    };
    return {
      startSpan,
      startActiveSpan: ((name: string, fn: (span: Span) => unknown) => fn(startSpan(name))) as Tracer['startActiveSpan'],
    };
  }
}

/** Synchronous context propagation: enough to see which span is active while a handler runs. */
class StackContextManager implements ContextManager {
  private stack: Context[] = [];
  active(): Context {
    return this.stack.at(-1) ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    this.stack.push(ctx);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.stack.pop();
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.stack = [];
    return this;
  }
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

function tracedServer() {
  const seenActive: (Span | undefined)[] = [];
  const registry = new Registry()
    .registerTool({
      name: 'echo',
      handler: (args) => {
        seenActive.push(trace.getActiveSpan());
        return `echo: ${String(args.text)}`;
      },
    })
    .registerTool({ name: 'crash', handler: () => { throw new Error('boom'); } })
    .registerTool({ name: 'never', handler: () => new Promise(() => {}) });
  return { server: makeServer({ registry, logger: silentLogger() }), seenActive };
}

describe('without a tracer provider', () => {
  test('a server has the API but no tracer, so requests start no span', async () => {
    const tracing = createTracing();
    expect(tracing).not.toBeNull(); // @opentelemetry/api is installed here
    expect(tracing!.tracer()).toBeUndefined();
    const provider = new RecordingProvider();
    const { server } = tracedServer();
    await server.handleMessage(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'x' } }));
    trace.setGlobalTracerProvider(provider);
    try {
      expect(tracing!.tracer()).toBeDefined();
      expect(provider.spans).toHaveLength(0);
    } finally {
      trace.disable();
    }
  });
});

describe('with a tracer provider', () => {
  let provider: RecordingProvider;

  beforeEach(() => {
    provider = new RecordingProvider();
    context.setGlobalContextManager(new StackContextManager());
    trace.setGlobalTracerProvider(provider);
  });

  afterEach(() => {
    trace.disable();
    context.disable();
  });

  test("a tools/call is one SERVER span, child of _meta.traceparent's span, with tracestate kept and the handler inside it", async () => {
    const { server, seenActive } = tracedServer();
    const message = rpc(1, 'tools/call', {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'vendor=opaque' },
    });
    await server.handleMessage(message, { connId: 'c1' });
    expect(provider.spans).toHaveLength(1);
    const span = provider.spans[0]!;
    expect(span.name).toBe('tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.parent).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_ID, traceFlags: 1, isRemote: true });
    expect(span.parent!.traceState?.serialize()).toBe('vendor=opaque');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '1',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'rxmcp.outcome': 'ok',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.ends).toBe(1);
    expect(seenActive).toStrictEqual([span]);
    // One tracer for the provider, not one per request.
    await server.handleMessage(rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'again' } }));
    expect(provider.tracers).toBe(1);
  });

  test('without trace context, or with an invalid one, the span has no remote parent', async () => {
    const { server } = tracedServer();
    await server.handleMessage(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'x' } }));
    await server.handleMessage(rpc(2, 'tools/call', { name: 'echo', _meta: { traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01` } }));
    await server.handleMessage(rpc(3, 'tools/call', { name: 'echo', _meta: { traceparent: `ff-${TRACE_ID}-${PARENT_ID}-01` } }));
    await server.handleMessage(rpc(4, 'tools/call', { name: 'echo', _meta: { traceparent: 'not a traceparent' } }));
    expect(provider.spans.map((s) => s.parent)).toStrictEqual([undefined, undefined, undefined, undefined]);
  });

  test('failures: a crash is an ERROR span with error.type tool_error, a JSON-RPC error carries its code, a cancel ends the span', async () => {
    const { server } = tracedServer();
    await server.handleMessage(rpc(1, 'tools/call', { name: 'crash' }));
    await server.handleMessage(rpc(2, 'tools/call', { name: 'missing' }));
    const { reply, ref } = server.request(rpc(3, 'tools/call', { name: 'never' }));
    server.cancel(ref);
    await reply;
    await server.handleMessage(rpc(4, 'resources/read', { uri: 'mem://nothing' }));
    const [crash, missing, cancelled, read] = provider.spans;
    expect(crash!.status.code).toBe(SpanStatusCode.ERROR);
    expect(crash!.attributes['error.type']).toBe('tool_error');
    expect(missing!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'Tool not found: missing' });
    expect(missing!.attributes).toMatchObject({ 'error.type': '-32601', 'rpc.response.status_code': '-32601' });
    expect(cancelled!.attributes['rxmcp.outcome']).toBe('cancelled');
    expect(read!.name).toBe('resources/read'); // a URI is not a low-cardinality span name...
    expect(read!.attributes['mcp.resource.uri']).toBe('mem://nothing'); // ...but it is an attribute
    expect(provider.spans.map((s) => s.ends)).toStrictEqual([1, 1, 1, 1]);
  });

  test('once the provider is gone, requests start no span', async () => {
    const { server } = tracedServer();
    await server.handleMessage(rpc(1, 'ping'));
    trace.disable();
    await server.handleMessage(rpc(2, 'ping'));
    expect(provider.spans.map((s) => s.name)).toStrictEqual(['ping']);
  });
});
