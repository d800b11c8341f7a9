/**
 * pageOf: one page of a skills list or a directory's children and the
 * cursor of the next, the way the core lists page (an opaque base64url
 * offset; a cursor we did not mint is undefined, the caller's -32602). An
 * item is never split across pages, so a skill entry stays atomic.
 */
export type SkillPage<T> = { readonly items: readonly T[]; readonly nextCursor?: string } | undefined;

export function pageOf<T>(items: readonly T[], cursor: unknown, pageSize: number): SkillPage<T> {
  let offset = 0;
  if (cursor !== undefined) {
    if (typeof cursor !== 'string') return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
      if (typeof parsed?.s !== 'number' || !Number.isSafeInteger(parsed.s) || parsed.s <= 0) return undefined;
      offset = parsed.s;
    } catch {
      return undefined;
    }
  }
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length ? { items: page, nextCursor: Buffer.from(JSON.stringify({ s: end })).toString('base64url') } : { items: page };
}
