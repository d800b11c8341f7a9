/**
 * The client-capability table: what each connection advertised at
 * initialize, kept until its subscriber goes and capped at
 * `maxClientCapabilities`. Over the cap the oldest entry without a live
 * subscriber goes first (possibly the one just written), a live one only when
 * every entry is live. An evicted connection keeps working; it just cannot be
 * asked until it initializes again. The table is this process's own, also
 * in a cluster: a legacy connection, and so its entry, lives on one node.
 *
 * An entry is a projection, never the client's object: only the capabilities
 * the server reads (elicitation with its form and url modes, sampling,
 * roots), each as a presence flag. A client's `capabilities` may be megabytes
 * once parsed; what is kept per entry is a few small objects whatever it sent.
 */
import type { Principal } from '../../lib/auth/principal.js';
import type { ConnId } from '../../lib/context.js';
import { principalField, type ServerEvent } from '../../lib/events.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';

/** The capabilities the server reads; each present one is an empty object, as a client may advertise it. */
export interface ClientCapabilities {
  readonly elicitation?: { readonly form?: Record<string, never>; readonly url?: Record<string, never> };
  readonly sampling?: Record<string, never>;
  readonly roots?: Record<string, never>;
  /** The server's own extensions (lib/extension.ts) the client declared under `extensions`; no other id is kept. */
  readonly extensions?: ReadonlySet<string>;
}

const PRESENT: Record<string, never> = Object.freeze({});
const NO_EXTENSIONS: ReadonlySet<string> = new Set();

/**
 * Whether an `elicitation` capability (advertised at initialize or declared
 * on a modern request) supports form mode: `elicitation: {}`, the 2025-06-18
 * shape and the spec's own example, means form; only url means url only.
 */
export function supportsFormElicitation(elicitation: unknown): boolean {
  return isPlainObject(elicitation) && (isPlainObject(elicitation.form) || !isPlainObject(elicitation.url));
}

/** What the server keeps of an initialize's `capabilities`: a capability counts when it is an object, as the readers check. */
export function projectCapabilities(advertised: unknown, known: ReadonlySet<string> = NO_EXTENSIONS): ClientCapabilities {
  if (!isPlainObject(advertised)) return {};
  const kept: { -readonly [K in keyof ClientCapabilities]: ClientCapabilities[K] } = {};
  const elicitation = advertised.elicitation;
  if (isPlainObject(elicitation)) {
    const modes: { form?: Record<string, never>; url?: Record<string, never> } = {};
    if (isPlainObject(elicitation.form)) modes.form = PRESENT;
    if (isPlainObject(elicitation.url)) modes.url = PRESENT;
    kept.elicitation = Object.freeze(modes);
  }
  if (isPlainObject(advertised.sampling)) kept.sampling = PRESENT;
  if (isPlainObject(advertised.roots)) kept.roots = PRESENT;
  const extensions = advertised.extensions;
  if (known.size > 0 && isPlainObject(extensions)) {
    // Bounded by the server's own list, whatever the client sent.
    const declared = new Set([...known].filter((id) => Object.hasOwn(extensions, id) && isPlainObject(extensions[id])));
    if (declared.size > 0) kept.extensions = declared;
  }
  return Object.freeze(kept);
}

interface Entry {
  readonly capabilities: ClientCapabilities;
  /** Who initialized, for the eviction event: the connection may be gone by then. */
  readonly principal: Principal | undefined;
}

export class CapabilityTable {
  /** Map order is write order, so the first key is the oldest entry. */
  private readonly entries = new Map<ConnId, Entry>();

  constructor(
    private readonly max: number,
    private readonly isLive: (connId: ConnId) => boolean,
    private readonly emit: (event: ServerEvent) => void,
    /** The server's extension ids: the only ones kept of what a client declares. */
    private readonly knownExtensions: ReadonlySet<string> = NO_EXTENSIONS,
  ) {}

  /** Keeps the projection of what `connId` advertised (see projectCapabilities), never the object itself. */
  set(connId: ConnId, advertised: unknown, principal?: Principal): void {
    this.entries.delete(connId);
    this.entries.set(connId, { capabilities: projectCapabilities(advertised, this.knownExtensions), principal });
    while (this.entries.size > this.max) this.evictOne();
  }

  get(connId: ConnId): ClientCapabilities | undefined {
    return this.entries.get(connId)?.capabilities;
  }

  delete(connId: ConnId): void {
    this.entries.delete(connId);
  }

  get size(): number {
    return this.entries.size;
  }

  private evictOne(): void {
    let victim: ConnId | undefined;
    for (const connId of this.entries.keys()) {
      if (!this.isLive(connId)) {
        victim = connId;
        break;
      }
    }
    const liveSubscriber = victim === undefined;
    victim ??= this.entries.keys().next().value as ConnId;
    const principal = this.entries.get(victim)?.principal;
    this.entries.delete(victim);
    this.emit({
      type: 'client_capabilities_evicted',
      connId: victim,
      size: this.entries.size,
      maxClientCapabilities: this.max,
      liveSubscriber,
      ...principalField(principal),
    });
  }
}
