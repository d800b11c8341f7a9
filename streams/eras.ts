/**
 * What differs between the two eras once a request's era is decided
 * (era-decision.ts): which methods exist, which a client may not cancel,
 * and how a reply is shaped for the wire. One table, read by dispatch.
 */
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import type { Era } from '../lib/protocol/modern.js';
import { METHODS, UNCANCELLABLE } from './methods/index.js';
import { encodeModernReply } from './modern/encode.js';
import { MODERN_METHODS } from './modern/methods.js';
import type { MethodHandler, RequestScope, ServerCore } from './server-core.js';

export interface EraWire {
  readonly methods: ReadonlyMap<string, MethodHandler>;
  readonly uncancellable: ReadonlySet<string>;
  /** The reply as this era's wire has it; null when the legacy shape is the wire's. */
  readonly encode: ((core: ServerCore, scope: RequestScope, reply: JsonRpcResponse | null) => JsonRpcResponse | null) | null;
}

export const ERAS: Readonly<Record<Era, EraWire>> = {
  legacy: { methods: METHODS, uncancellable: UNCANCELLABLE, encode: null },
  modern: { methods: MODERN_METHODS, uncancellable: new Set(), encode: encodeModernReply },
};
