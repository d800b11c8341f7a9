/**
 * normalizeIds: a copy of a value (a message, a list of them, a snapshot)
 * with the ids the server makes up at random replaced by stable
 * placeholders, numbered in the order first seen: `<approval-1>`,
 * `<requestState-1>`, `<connection-1>`... The same id gets the same
 * placeholder everywhere, so a snapshot or a marble comparison still shows
 * which answer went to which question, and stays equal from run to run.
 *
 * Replaced: strings shaped like rxmcp's random ids (approval and client
 * request ids, connection and session ids), any string under a key that
 * names one (`requestState`, `sessionId`, `mcp-session-id`, `ticketId`,
 * `connId`), and, once seen, that same string anywhere else. In a marble
 * test keep one normalizer for the whole stream:
 *
 *   const normalize = createIdNormalizer();
 *   expectObservable(server.connect('c', inbound$).pipe(map(normalize))).toBe(...);
 */
export interface IdNormalizerOptions {
  /** More keys whose string values are ids, with the placeholder's name: `{ orderId: 'order' }`. */
  readonly keys?: Readonly<Record<string, string>>;
  /** More id shapes, with the placeholder's name: `[[/^ord_[0-9a-f]{12}$/, 'order']]`. */
  readonly patterns?: readonly (readonly [RegExp, string])[];
}

const RANDOM = '[A-Za-z0-9_-]{24}';

const SHAPES: readonly (readonly [RegExp, string])[] = [
  [new RegExp(`^rxmcp-elicit-${RANDOM}$`), 'approval'],
  [new RegExp(`^rxmcp-req-${RANDOM}$`), 'request'],
  [new RegExp(`^(?:memory|conn|ws|mcp-modern)-${RANDOM}$`), 'connection'],
  [new RegExp(`^(?:[^.\\s]+\\.)?(?:mcp|sse)-${RANDOM}$`), 'session'],
];

const KEYS: Readonly<Record<string, string>> = {
  requestState: 'requestState',
  sessionId: 'session',
  'mcp-session-id': 'session',
  ticketId: 'ticket',
  connId: 'connection',
};

/** A normalizer that remembers the placeholders it gave, for values read one at a time. */
export function createIdNormalizer(options: IdNormalizerOptions = {}): <T>(value: T) => T {
  const keys = { ...KEYS, ...options.keys };
  const shapes = [...(options.patterns ?? []), ...SHAPES];
  const given = new Map<string, string>();
  const counts = new Map<string, number>();
  const placeholder = (id: string, name: string): string => {
    let found = given.get(id);
    if (found === undefined) {
      const n = (counts.get(name) ?? 0) + 1;
      counts.set(name, n);
      found = `<${name}-${n}>`;
      given.set(id, found);
    }
    return found;
  };
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') {
      const known = given.get(value);
      if (known !== undefined) return known;
      const byKey = key === undefined ? undefined : keys[key];
      if (byKey !== undefined) return placeholder(value, byKey);
      const shape = shapes.find(([pattern]) => pattern.test(value));
      return shape === undefined ? value : placeholder(value, shape[1]);
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, undefined));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return <T>(value: T): T => walk(value, undefined) as T;
}

/** One value normalized on its own (placeholders numbered from 1 within it). */
export function normalizeIds<T>(value: T): T {
  return createIdNormalizer()(value);
}
