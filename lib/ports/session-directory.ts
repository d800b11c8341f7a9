/**
 * The session directory: how the nodes of one deployment behind a load
 * balancer with no stickiness find which of them holds a session (a
 * Streamable HTTP session or a legacy HTTP+SSE stream). Without one (the
 * default) a handler is alone: a session it does not hold does not exist
 * (404), exactly as before.
 *
 * With one, every session id a node mints names that node
 * (`<nodeId>.<prefix>-<random>`), so the id is its own directory entry: a
 * request naming a session some other node minted is relayed to that node
 * while the directory says it is alive (relay.ts), and is a 404 as soon as
 * it is not. Nothing is written per session, so there is nothing to expire
 * or clean up when a node dies: its liveness record lapses and its
 * sessions are gone for every node at once.
 */

/** Where a live node's handler is reached by the other nodes. */
export interface SessionRoute {
  readonly nodeId: string;
  /** Where its server is reached (`http://10.0.0.7:3000`); a relayed request's path, mount path included, follows it. */
  readonly url: string;
}

/** Where legacy sessions live in a cluster (the HTTP `sessionDirectory` option): this node's id, the relay key, and where another node is reached. */
export interface SessionDirectory {
  /** This node's name in the deployment: letters, digits, `_` and `-`. */
  readonly nodeId: string;
  /** Shared by the deployment's nodes: relayed requests are signed with it, and only a node holding it is believed. */
  readonly relayKey: Uint8Array;
  /** Where the node named `nodeId` is reached, while it is alive; undefined when it is not (or never was). */
  locate(nodeId: string): Promise<SessionRoute | undefined>;
  /** `route` refused or timed out a connection: forget it, so the next lookup of that node answers at once. */
  unreachable(route: SessionRoute): void;
}

const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isNodeId(value: unknown): value is string {
  return typeof value === 'string' && NODE_ID.test(value);
}

/** A session id that names `nodeId` as its owner. */
export function sessionIdOf(nodeId: string, localId: string): string {
  return `${nodeId}.${localId}`;
}

/** The node a session id names, when it names one. */
export function ownerNodeOf(sessionId: string): string | undefined {
  const dot = sessionId.indexOf('.');
  if (dot <= 0) return undefined;
  const nodeId = sessionId.slice(0, dot);
  return isNodeId(nodeId) ? nodeId : undefined;
}
