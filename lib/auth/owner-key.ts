/**
 * ownerKey: the one identity rule for ownership and fairness. Every share
 * (in-flight workers, parked calls, approval tickets, the HTTP session
 * table's per-owner cap and its eviction) counts by it, and what a caller
 * leaves behind (a parked call, a ticket) is owned by it: the best identity
 * there is, the principal when authenticated, else the peer, else the
 * connection.
 *
 * Why the principal outranks the peer: a principal is verified and names one
 * user of one client; a peer (the socket's address, or a trusted proxy's
 * header) only names a place on the network. Many people share an address
 * (a NAT, a proxy whose header is not configured), so counting an
 * authenticated caller by its address would let one principal fill its
 * address's share and crowd out, even evict, everyone else there; and one
 * person moves between addresses, so it would also let one principal hold a
 * share per address. Without a principal the address is the best there is
 * (set by the transport, not by anything the client writes in a message);
 * without a peer either (stdio, in-memory, direct callers) each connection is
 * its own owner.
 *
 * A principal's owner key is `principal:<key>` (its stable key survives a
 * token refresh), the form permits, middleware and telemetry already see.
 */
import type { Principal } from './principal.js';

/** Where a principal's owner key starts; a network peer's starts with `addr:` (transports/peer.ts). */
const PRINCIPAL_PREFIX = 'principal:';

/** The owner of what a caller with this principal and peer does; with a peer always at hand (a network request). */
export function ownerKey(principal: Principal | undefined, peer: string): string;
/** As above, falling back to the connection when the transport knows no peer. */
export function ownerKey(principal: Principal | undefined, peer: string | undefined, connId: string): string;
export function ownerKey(principal: Principal | undefined, peer: string | undefined, connId?: string): string {
  if (principal !== undefined) return `${PRINCIPAL_PREFIX}${principal.key}`;
  // The overloads give a connection whenever the peer may be missing.
  return peer ?? connId!;
}
