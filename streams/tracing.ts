/**
 * Tracing: one SERVER span per request through `@opentelemetry/api`, an
 * optional peer dependency. The API is imported once, when this module
 * loads; without it a server has no Tracing at all, and with it but no
 * tracer provider registered a request costs one provider lookup and
 * nothing else. A request's `_meta.traceparent` (and `tracestate`), as the
 * MCP specification carries W3C trace context, makes the span a child of the
 * caller's; without one the span's parent is the active context.
 */
import type * as OtelApi from '@opentelemetry/api';
import { isPlainObject } from '../lib/protocol/jsonrpc.js';
import { PACKAGE_VERSION } from '../lib/version.js';

type Api = typeof OtelApi;
export type Span = OtelApi.Span;
export type TraceContext = OtelApi.Context;

// A specifier in a variable: a bundler leaves an optional dependency it cannot find alone.
const OTEL_API = '@opentelemetry/api';
const api: Api | null = await import(OTEL_API).then(
  (module: Api) => module,
  () => null,
);

/** W3C trace-context `traceparent`: version, trace id, parent span id, flags. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** One server's view of the global tracer provider, with its tracer cached per provider. */
export class Tracing {
  #provider: unknown;
  #tracer: OtelApi.Tracer | undefined;

  constructor(
    readonly api: Api,
    /** What an unregistered provider delegates to: seeing it means nobody is listening. */
    private readonly noop: unknown,
  ) {}

  /** The tracer to record with now, or undefined when no tracer provider is registered. */
  tracer(): OtelApi.Tracer | undefined {
    const global = this.api.trace.getTracerProvider() as OtelApi.TracerProvider & { getDelegate?: () => OtelApi.TracerProvider };
    const provider = typeof global.getDelegate === 'function' ? global.getDelegate() : global;
    if (provider === this.noop) return undefined;
    if (provider !== this.#provider) {
      this.#provider = provider;
      this.#tracer = provider.getTracer('rxmcp', PACKAGE_VERSION);
    }
    return this.#tracer;
  }

  /** The caller's span from `_meta.traceparent`/`tracestate` when valid, else the active context. */
  parentContext(meta: unknown): OtelApi.Context {
    const api = this.api;
    if (!isPlainObject(meta) || typeof meta.traceparent !== 'string') return api.context.active();
    const parts = TRACEPARENT.exec(meta.traceparent.trim());
    // Version ff is invalid; version 00 has exactly four fields.
    if (parts === null || parts[1] === 'ff' || (parts[1] === '00' && parts[5] !== undefined)) return api.context.active();
    const [, , traceId, spanId, flags] = parts as unknown as [string, string, string, string, string];
    if (!api.isValidTraceId(traceId) || !api.isValidSpanId(spanId)) return api.context.active();
    const spanContext: OtelApi.SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
    if (typeof meta.tracestate === 'string') spanContext.traceState = api.createTraceState(meta.tracestate);
    return api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext);
  }
}

/** A server's Tracing, or null when `@opentelemetry/api` is not installed. */
export function createTracing(): Tracing | null {
  if (api === null) return null;
  return new Tracing(api, new api.ProxyTracerProvider().getDelegate());
}
