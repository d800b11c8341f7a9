/**
 * A result whose wire text is mostly known in advance: fixed members before
 * and after the members of a body object (a modern result is the handler's
 * result with `resultType` first and the server's `_meta` last), so
 * encodeMessage writes the fixed parts as text and serialises only the body.
 *
 * The result object everyone sees holds every member, as always. The
 * framing is remembered beside it, for the one result framed last: a reply
 * is encoded in the turn its result is framed, before the next one is;
 * anything else (a reply encoded later, a copy) is found unframed and
 * serialised in full, to the same text. Not a symbol property on the
 * result: defining a hidden one costs more than the framing saves, and a
 * visible one would show in equality checks and spreads.
 *
 * The framer promises that `head`, then the body's members, then `tail`, as
 * JSON, is the JSON of the result while it holds exactly the body's members
 * (same values) and the `fixed` ones (same values); text() checks that
 * before using the frame, so a result changed since is serialised in full.
 */
export class FramedResult {
  /**
   * `head` and `tail`: the `fixed` members as JSON text (`"key":value`,
   * comma-separated, never empty); `fixed` should be frozen, as its values
   * are compared by identity only.
   */
  constructor(
    readonly result: object,
    readonly head: string,
    readonly body: object,
    readonly tail: string,
    readonly fixed: Readonly<Record<string, unknown>>,
  ) {}

  /** The result's JSON text; undefined when the result changed since it was framed, or the body is not an object in JSON. */
  text(): string | undefined {
    if (!this.#unchanged()) return undefined;
    const body = JSON.stringify(this.body);
    if (typeof body !== 'string' || body.charCodeAt(0) !== 0x7b) return undefined;
    return body.length === 2 ? `{${this.head},${this.tail}}` : `{${this.head},${body.slice(1, -1)},${this.tail}}`;
  }

  /** Cheap for the few members a result has: every body and fixed member still there, nothing else. */
  #unchanged(): boolean {
    const result = this.result as Record<string, unknown>;
    const body = this.body as Record<string, unknown>;
    let expected = 0;
    for (const key in body) {
      if (!Object.hasOwn(body, key)) continue;
      // JSON.stringify writes integer-like keys first, before `head`'s: a key starting with a digit is written in full.
      const first = key.charCodeAt(0);
      if ((first >= 0x30 && first <= 0x39) || result[key] !== body[key]) return false;
      expected++;
    }
    for (const key in this.fixed) {
      if (result[key] !== this.fixed[key]) return false;
      expected++;
    }
    for (const key in result) if (Object.hasOwn(result, key)) expected--;
    return expected === 0;
  }
}

let last: FramedResult | undefined;

/** Remembers `framed` for its result, in place of the one before. */
export function frame(framed: FramedResult): void {
  last = framed;
}

/** The framing of `result` when it is the one framed last; used once. */
export function takeFraming(result: unknown): FramedResult | undefined {
  const framed = last;
  if (framed === undefined || framed.result !== result) return undefined;
  last = undefined;
  return framed;
}
