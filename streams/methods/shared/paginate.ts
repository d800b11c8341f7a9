/**
 * paginate: one page of a list method's items and the cursor for the next.
 * A cursor is opaque to the client (a base64url offset) and anything we did
 * not mint is -32602.
 */
export type Page<T> = { readonly items: T[]; readonly nextCursor?: string } | { readonly invalid: true };

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    const offset = parsed?.o;
    return typeof offset === 'number' && Number.isSafeInteger(offset) && offset > 0 ? offset : undefined;
  } catch {
    return undefined;
  }
}

export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): Page<T> {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
    if (decoded === undefined) return { invalid: true };
    offset = decoded;
  }
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor(end) } : { items: page };
}
