/**
 * decideEra: each message under its era (the EraDecision below), decided once,
 * here, before any method is looked up: pinned per connection (stdio,
 * WebSocket), per request (HTTP, direct callers) or legacy only (sessions).
 * A request claiming the modern era carries its validated envelope on; a
 * bad envelope is its error; the legacy initialization phase drops or
 * refuses what comes before `initialize`. Everything but requests passes
 * through as it is.
 *
 * ```
 * incoming (per-connection):  --d-----r-----m--|    d server/discover (claim), r initialize (no claim), m a claiming request
 * result:                     --d'----r'----m'-|    d' modern (not pinned), r' legacy (pins legacy), m' invalid(-32600)
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import type { TransportKind } from '../../lib/context.js';
import { invalidParams, invalidRequest, methodNotFound, unsupportedProtocolVersion } from '../../lib/errors.js';
import type { JsonRpcId } from '../../lib/protocol/jsonrpc.js';
import { hasModernClaim, MODERN_META, MODERN_PROTOCOL_VERSIONS, type Era, type EraPolicy, type ModernRequest, type ReadEnvelope } from '../../lib/protocol/modern.js';
import type { Classified, ClassifiedRequest, Decided, DecidedRequest, EraDecision } from '../../lib/protocol/classified.js';
import { EnvelopeReader, isEnvelopeError, readEnvelope } from '../modern/envelope.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import type { ServerCore } from '../state/server-core.js';
import { type Incoming, perMessage } from './incoming.js';

/**
 * The era decision: which protocol era each request is served under, made
 * once, here, before any method is looked up. Its answer for a request is
 * `{ era: 'legacy' }`, `{ era: 'modern', modern }` (the validated envelope)
 * or the error that request earns; every other message passes through (or
 * is dropped by the legacy initialization phase, InitializationGate below).
 *
 * A request claims the modern era with
 * `params._meta["io.modelcontextprotocol/protocolVersion"]`; a claim with a
 * bad envelope is answered by modern/envelope.ts and never served as legacy.
 * Three policies (EraPolicy, chosen per connection in McpServer.connect):
 *
 * - per-connection (stdio, WebSocket, in-memory, custom): the connection is
 *   open until its first request other than a `server/discover` probe; a
 *   claim pins it modern, no claim (`initialize`, a `ping`) pins it legacy.
 *   A valid probe is answered without pinning (a client may probe, then
 *   still fall back to initialize); a request whose envelope is refused pins
 *   nothing. Only requests pin: a response answers nothing before a pin and
 *   a notification is dropped or harmless.
 *   Pinned modern: a claim-less `initialize` is -32022 naming the modern
 *   revisions (no falling back once modern is confirmed); any other
 *   claim-less request is -32602 (its envelope is missing).
 *   Pinned legacy: exactly the legacy behaviour for claim-less messages;
 *   `server/discover` is -32601 (no legacy method of that name) and any
 *   other claiming request is -32600 (this connection is legacy).
 * - per-message (direct callers, a per-request HTTP classifier): a claim
 *   makes that request modern, no claim legacy; nothing is remembered.
 * - legacy (legacy HTTP+SSE, streamable HTTP sessions): pinned legacy from
 *   the start.
 *
 * The legacy initialization phase (stdio, ws, sse) applies to legacy
 * traffic only, exactly as before the modern era existed.
 *
 * A connection pinned modern gets no broadcasts (server.notify, list_changed):
 * the modern era sends only replies, notifications of a request in flight,
 * and notifications on a subscriptions/listen stream (McpServer.connect).
 */

export const DISCOVER = 'server/discover';

const LEGACY_CONNECTION =
  'Invalid Request: this connection speaks the legacy protocol (it began without io.modelcontextprotocol/protocolVersion); open a new connection for modern requests';

// Written out, not spread: V8 clones a spread-and-extend literal on a slow path (~1 µs a request).
function legacy(request: ClassifiedRequest): DecidedRequest {
  return { kind: 'request', id: request.id, method: request.method, params: request.params, era: 'legacy' };
}

/** A claiming request: modern with its envelope, or the envelope's error. */
function modern(request: ClassifiedRequest, reader?: EnvelopeReader): Decided {
  const envelope = reader === undefined ? readEnvelope(request.id, request.params) : reader.read(request.id, request.params);
  if (isEnvelopeError(envelope)) return { kind: 'invalid', reply: envelope };
  return { kind: 'request', id: request.id, method: request.method, params: request.params, era: 'modern', modern: envelope };
}

/** What a claim-less request gets on a modern-pinned connection. */
function claimMissing(id: JsonRpcId, method: string, params: Record<string, unknown> | undefined): Decided {
  if (method === 'initialize') {
    return { kind: 'invalid', reply: unsupportedProtocolVersion(id, MODERN_PROTOCOL_VERSIONS, params?.protocolVersion ?? 'initialize') };
  }
  const key = MODERN_META.protocolVersion;
  return {
    kind: 'invalid',
    reply: invalidParams(id, `Invalid params: _meta["${key}"] is required (this connection speaks the modern protocol)`, { key }),
  };
}

/** Each request by its own claim; nothing remembered. */
class PerMessage implements EraDecision {
  readonly pinned = undefined;

  decide(classified: Classified): Decided {
    if (classified.kind !== 'request') return classified;
    return hasModernClaim(classified.params) ? modern(classified) : legacy(classified);
  }
}

/** Legacy traffic as it always was (with the initialization phase where the transport has one); claims refused. */
class LegacyOnly implements EraDecision {
  readonly pinned = 'legacy';

  constructor(private readonly gate: InitializationGate | undefined) {}

  decide(classified: Classified): Decided {
    if (classified.kind === 'request' && hasModernClaim(classified.params)) {
      if (classified.method === DISCOVER) return { kind: 'invalid', reply: methodNotFound(classified.id, DISCOVER) };
      return { kind: 'invalid', reply: invalidRequest(classified.id, LEGACY_CONNECTION) };
    }
    const screened = this.gate === undefined ? classified : this.gate.screen(classified);
    return screened.kind === 'request' ? legacy(screened) : screened;
  }
}

/** Open until the first request other than a discover probe; then pinned for the connection's life. */
class PerConnection implements EraDecision {
  #pinned: Era | undefined;
  private readonly legacyOnly: LegacyOnly;
  /** A connection's client repeats its envelope: read once while it does not change. */
  private readonly envelopes = new EnvelopeReader();

  constructor(gate: InitializationGate | undefined) {
    this.legacyOnly = new LegacyOnly(gate);
  }

  get pinned(): Era | undefined {
    return this.#pinned;
  }

  decide(classified: Classified): Decided {
    if (this.#pinned === 'legacy') return this.legacyOnly.decide(classified);
    if (this.#pinned === 'modern') {
      if (classified.kind !== 'request') return classified;
      return hasModernClaim(classified.params) ? modern(classified, this.envelopes) : claimMissing(classified.id, classified.method, classified.params);
    }
    if (classified.kind !== 'request') return this.legacyOnly.decide(classified);
    if (!hasModernClaim(classified.params)) {
      this.#pinned = 'legacy';
      return this.legacyOnly.decide(classified);
    }
    const decided = modern(classified, this.envelopes);
    if (decided.kind === 'request' && decided.method !== DISCOVER) this.#pinned = 'modern';
    return decided;
  }
}

const PER_MESSAGE: EraDecision = new PerMessage();

/**
 * Per message, for a connection whose one request's envelope the transport
 * has already read (modern HTTP decides the era before serving, with the
 * same readEnvelope): that request, recognised by its params object, is
 * modern with that envelope instead of being validated a second time. Only
 * once; anything else is decided per message.
 */
class AlreadyRead implements EraDecision {
  readonly pinned = undefined;
  #params: Record<string, unknown> | undefined;
  #envelope: ModernRequest | undefined;

  constructor(params: Record<string, unknown>, envelope: ModernRequest) {
    this.#params = params;
    this.#envelope = envelope;
  }

  decide(classified: Classified): Decided {
    const envelope = this.#envelope;
    if (envelope === undefined || classified.kind !== 'request' || classified.params !== this.#params) return PER_MESSAGE.decide(classified);
    this.#envelope = undefined;
    this.#params = undefined;
    return { kind: 'request', id: classified.id, method: classified.method, params: classified.params, era: 'modern', modern: envelope };
  }
}

/** The per-message decision, told one request's envelope in advance (see AlreadyRead). */
export function perMessageEraWith(read: ReadEnvelope | undefined): EraDecision {
  return read === undefined ? PER_MESSAGE : new AlreadyRead(read.params, read.envelope);
}

/** The default policy for a connection declared as `transport`. */
export function defaultEraPolicy(transport: TransportKind): EraPolicy {
  return transport === 'sse' || transport === 'http' ? 'legacy' : 'per-connection';
}

/** A fresh decision for one connection (the legacy initialization phase included where `transport` has one). */
export function eraDecisionFor(policy: EraPolicy, transport: TransportKind): EraDecision {
  switch (policy) {
    case 'per-message':
      return PER_MESSAGE;
    case 'legacy':
      return new LegacyOnly(initializationGateFor(transport));
    case 'per-connection':
      return new PerConnection(initializationGateFor(transport));
  }
}

/** The decision direct callers get (handleMessage, request): per message. */
export function perMessageEra(): EraDecision {
  return PER_MESSAGE;
}

export const ERA_POLICIES: readonly EraPolicy[] = ['per-connection', 'per-message', 'legacy'];

/**
 * The initialization phase on a legacy-era connection: one decision, here.
 *
 * MCP 2025-11-25 (basic/lifecycle): initialization MUST be the first
 * interaction, and the client SHOULD NOT send requests other than pings
 * before the server has answered `initialize`. Answering anyway would answer
 * as if a revision had been agreed, and a client that pinned another one
 * would misread the reply. So, on a connection that a stdio, WebSocket or
 * legacy HTTP+SSE transport declared through `connect`, until its first
 * `initialize` arrives:
 * - `initialize` passes (and opens the connection for everything), `ping` passes;
 * - any other request is answered -32600 "send initialize first", with its id;
 * - a notification is dropped (there is nothing it could refer to yet);
 * - envelope refusals and responses go on as they would (a response answers
 *   nothing the server asked, so it is ignored anyway).
 *
 * Not gated: direct callers (`handleMessage`, `request`, `subscribe`), the
 * in-memory transport, and Streamable HTTP, whose `initialize` mints the
 * session every other POST must name. The gate screens legacy traffic only:
 * the era decision (above) owns it, and a modern (2026-07-28)
 * request, which has no initialize at all, never reaches it.
 */
const GATED: ReadonlySet<TransportKind> = new Set<TransportKind>(['stdio', 'ws', 'sse']);

const DROP: Classified = { kind: 'drop' };
const NOT_INITIALIZED = 'Invalid Request: send initialize first (this connection is not initialized)';

export class InitializationGate {
  private initialized = false;

  /** What the connection does with `classified`: itself, or the refusal or drop the phase calls for. */
  screen(classified: Classified): Classified {
    if (this.initialized) return classified;
    if (classified.kind === 'notification') return DROP;
    if (classified.kind !== 'request') return classified;
    if (classified.method === 'initialize') {
      this.initialized = true;
      return classified;
    }
    if (classified.method === 'ping') return classified;
    return { kind: 'invalid', reply: invalidRequest(classified.id, NOT_INITIALIZED) };
  }
}

/** A fresh gate for a connection declared as `transport`, or undefined when that transport is not gated. */
export function initializationGateFor(transport: TransportKind): InitializationGate | undefined {
  return GATED.has(transport) ? new InitializationGate() : undefined;
}

/** Fills `incoming.decided` from `incoming.classified`; returns it. */
function decideIncoming(core: ServerCore, incoming: Incoming): Incoming {
  const classified = incoming.classified!;
  try {
    incoming.decided = (incoming.origin.eraDecision ?? perMessageEra()).decide(classified);
  } catch (error) {
    // Only a direct caller's object can make the decision throw (a getter, a Proxy).
    incoming.decided = { kind: 'invalid', reply: pipelineFailure(core, incoming.origin.connId, null, error) };
  }
  return incoming;
}

export function decideEra(core: ServerCore): OperatorFunction<Incoming, Incoming> {
  return perMessage(
    (incoming: Incoming) => decideIncoming(core, incoming),
    (error) => reportPipelineFailure(core, '', error),
  );
}
