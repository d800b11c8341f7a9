/**
 * Whether a Node version satisfies a package's `engines.node` range, for the
 * lock-file test: the forms npm packages use (`>=20`, `>= 0.6`, `^20.19.0 ||
 * >=22.12.0`, `>= 10.x`, `*`). Anything else throws, so an unread range can
 * never pass silently.
 */
type Version = readonly [number, number, number];

function parse(text: string): Version {
  const match = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(text);
  if (match === null) throw new Error(`not a version: ${JSON.stringify(text)}`);
  const part = (value: string | undefined) => (value === undefined || value === 'x' || value === '*' ? 0 : Number(value));
  return [Number(match[1]), part(match[2]), part(match[3])];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function comparator(version: Version, token: string): boolean {
  if (token === '*' || token === '') return true;
  const match = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(token)!;
  const op = match[1] ?? '=';
  const bound = parse(match[2]!);
  const c = compare(version, bound);
  switch (op) {
    case '>=': return c >= 0;
    case '>': return c > 0;
    case '<=': return c <= 0;
    case '<': return c < 0;
    case '=': return c === 0;
    case '^': return c >= 0 && (bound[0] > 0 ? version[0] === bound[0] : version[0] === 0 && version[1] === bound[1]);
    case '~': return c >= 0 && version[0] === bound[0] && version[1] === bound[1];
    default: throw new Error(`unknown operator in ${token}`);
  }
}

export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .every((token) => comparator(v, token)),
  );
}
