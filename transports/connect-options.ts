/**
 * connectOptionsOf: what a transport tells `server.connect` about a
 * connection, in one of two fixed shapes (with or without a principal: see
 * streams/principal-shapes.ts for why the shapes are written out).
 */
import type { Principal } from '../lib/auth/principal.js';
import type { TransportKind } from '../lib/context.js';
import type { ConnectOptions } from '../streams/entry-options.js';

export function connectOptionsOf(transport: TransportKind, peer: string | undefined, principal: Principal | undefined): ConnectOptions {
  if (peer === undefined) return principal === undefined ? { transport } : { transport, principal };
  return principal === undefined ? { transport, peer } : { transport, peer, principal };
}
