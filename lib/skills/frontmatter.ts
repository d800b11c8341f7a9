/**
 * A SKILL.md's frontmatter: the `---` block at its top, read as the subset
 * of YAML that skills use, into the JSON object SEP-2640 publishes verbatim
 * as an entry's `frontmatter`.
 *
 * Why a subset of our own and not a YAML library: rxmcp takes no YAML
 * dependency, and the entry's frontmatter MUST be identical to what a host's
 * YAML parser makes of the same file, so anything we might read differently
 * is refused (FrontmatterError naming the line) rather than guessed at. The
 * subset: block mappings (nested by indentation), block sequences of
 * scalars, plain scalars typed by the YAML 1.2 core schema (null, booleans,
 * integers, floats; a plain scalar may continue on more indented lines),
 * single- and double-quoted one-line scalars, literal `|` and folded `>`
 * block scalars (with `-` / `+` chomping), empty flow `[]` / `{}`, and
 * comments. Refused: tabs in indentation, anchors, aliases, tags, flow
 * collections with content, multi-line quoted scalars, mappings inside
 * sequences, duplicate keys, numbers JSON cannot hold exactly, `.inf`, `.nan`.
 */

export class FrontmatterError extends Error {
  override name = 'FrontmatterError';
}

interface Line {
  readonly no: number;
  readonly indent: number;
  readonly text: string;
}

/** The frontmatter text between the opening and closing `---` lines, and where it starts; undefined when there is none. */
function splitFrontmatter(markdown: string): { yaml: string; firstLine: number } | undefined {
  const text = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) return undefined;
  return { yaml: match[1]!, firstLine: 2 };
}

/** The SKILL.md's frontmatter as a JSON object; FrontmatterError when it has none or it is outside the subset. */
export function parseFrontmatter(markdown: string): Record<string, unknown> {
  const split = splitFrontmatter(markdown);
  if (split === undefined) throw new FrontmatterError('SKILL.md must begin with a --- delimited YAML frontmatter block');
  const lines: Line[] = [];
  split.yaml.split('\n').forEach((raw, index) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const no = split.firstLine + index;
    const indent = text.length - text.trimStart().length;
    if (/^ *\t/.test(text)) throw new FrontmatterError(`line ${no}: a tab in indentation is not YAML`);
    lines.push({ no, indent, text });
  });
  const parser = new Parser(lines);
  const value = parser.mapping(0);
  parser.expectEnd();
  return value;
}

const isBlank = (line: Line): boolean => line.text.trim() === '' || line.text.trimStart().startsWith('#');

const KEY = /^([^\s#'"{}[\],&*!|>%@`:-][^:#]*?|-[^\s:#][^:#]*?)\s*:(?:\s+|$)(.*)$/;

class Parser {
  private at = 0;

  constructor(private readonly lines: readonly Line[]) {}

  private peek(): Line | undefined {
    while (this.at < this.lines.length && isBlank(this.lines[this.at]!)) this.at++;
    return this.lines[this.at];
  }

  expectEnd(): void {
    const line = this.peek();
    if (line !== undefined) throw new FrontmatterError(`line ${line.no}: unexpected indentation or content`);
  }

  mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let line = this.peek(); line !== undefined && line.indent === indent; line = this.peek()) {
      const body = line.text.slice(indent);
      if (body.startsWith('- ') || body === '-') throw new FrontmatterError(`line ${line.no}: a sequence where a mapping key was expected`);
      const match = KEY.exec(body);
      if (match === null) throw new FrontmatterError(`line ${line.no}: expected "key: value"`);
      const key = match[1]!;
      if (Object.hasOwn(out, key)) throw new FrontmatterError(`line ${line.no}: duplicate key ${JSON.stringify(key)}`);
      this.at++;
      out[key] = this.value(match[2]!, indent, line.no);
    }
    const next = this.peek();
    if (next !== undefined && next.indent > indent) throw new FrontmatterError(`line ${next.no}: unexpected indentation`);
    return out;
  }

  /** The value after `key:` on line `no`, whose key sits at `indent`. */
  private value(rest: string, indent: number, no: number): unknown {
    const inline = stripComment(rest).trim();
    if (inline === '') {
      const next = this.peek();
      if (next === undefined || next.indent < indent || (next.indent === indent && !next.text.slice(indent).startsWith('- '))) return null;
      if (next.text.slice(next.indent).startsWith('- ') || next.text.slice(next.indent) === '-') return this.sequence(next.indent);
      if (next.indent === indent) return null;
      return this.mapping(next.indent);
    }
    if (/^[|>]/.test(inline)) return this.blockScalar(inline, indent, no);
    if (inline.startsWith('"') || inline.startsWith("'")) return quoted(rest.trim(), no);
    return this.plain(inline, indent, no);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (let line = this.peek(); line !== undefined && line.indent === indent; line = this.peek()) {
      const body = line.text.slice(indent);
      if (!(body.startsWith('- ') || body === '-')) break;
      this.at++;
      const item = body.slice(1).trim();
      if (item === '' || KEY.test(item) || item.startsWith('- ')) throw new FrontmatterError(`line ${line.no}: only scalars are supported as sequence items`);
      const text = stripComment(body.slice(1)).trim();
      out.push(/^[|>]/.test(text) ? this.blockScalar(text, indent, line.no) : text.startsWith('"') || text.startsWith("'") ? quoted(body.slice(1).trim(), line.no) : this.plain(text, indent, line.no));
    }
    return out;
  }

  /** A plain scalar, continued on lines indented deeper than its key (folded: a line break is a space, a blank line a newline). */
  private plain(first: string, indent: number, no: number): unknown {
    let text = first;
    let continued = false;
    let blankRun = 0;
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.text.trim() === '') {
        blankRun++;
        this.at++;
        continue;
      }
      if (line.indent <= indent || line.text.trimStart().startsWith('#')) break;
      const more = stripComment(line.text).trim();
      if (KEY.test(more) || more.startsWith('- ')) throw new FrontmatterError(`line ${line.no}: ambiguous continuation of a plain scalar`);
      text += blankRun > 0 ? '\n'.repeat(blankRun) + more : ` ${more}`;
      continued = true;
      blankRun = 0;
      this.at++;
    }
    if (/:(\s|$)/.test(text)) throw new FrontmatterError(`line ${no}: ": " inside a plain scalar (quote the value)`);
    return continued ? text : typedScalar(first, no);
  }

  private blockScalar(header: string, indent: number, no: number): string {
    const match = /^([|>])([-+]?)$/.exec(header);
    if (match === null) throw new FrontmatterError(`line ${no}: block scalar header ${JSON.stringify(header)} is not supported`);
    const [, style, chomp] = match;
    const body: string[] = [];
    let contentIndent: number | undefined;
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.text.trim() === '') {
        body.push('');
        this.at++;
        continue;
      }
      if (line.indent <= indent) break;
      contentIndent ??= line.indent;
      if (line.indent < contentIndent) throw new FrontmatterError(`line ${line.no}: less indented than the block scalar's first line`);
      body.push(line.text.slice(contentIndent));
      this.at++;
    }
    let trailing = 0;
    while (body.length > 0 && body[body.length - 1] === '') {
      body.pop();
      trailing++;
    }
    let text = style === '|' ? body.join('\n') : foldLines(body);
    if (body.length === 0) return '';
    if (chomp === '+') text += '\n'.repeat(trailing + 1);
    else if (chomp !== '-') text += '\n';
    return text;
  }
}

function foldLines(lines: readonly string[]): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i === 0) out = line;
    else if (line === '') out += '\n';
    else if (lines[i - 1] === '' || line.startsWith(' ') || lines[i - 1]!.startsWith(' ')) out += (lines[i - 1] === '' ? '' : '\n') + line;
    else out += ` ${line}`;
  }
  return out;
}

function stripComment(text: string): string {
  const hash = text.search(/(^|\s)#/);
  return hash < 0 ? text : text.slice(0, hash);
}

function quoted(text: string, no: number): string {
  const quote = text[0]!;
  let out = '';
  let i = 1;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") {
        if (text[i + 1] === "'") {
          out += "'";
          i++;
          continue;
        }
        break;
      }
      out += c;
      continue;
    }
    if (c === '"') break;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = text[++i];
    const simple: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029' };
    if (e !== undefined && simple[e] !== undefined) {
      out += simple[e];
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    const hex = text.slice(i + 1, i + 1 + width);
    if (width === 0 || !new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new FrontmatterError(`line ${no}: unsupported escape in a double-quoted scalar`);
    out += String.fromCodePoint(parseInt(hex, 16));
    i += width;
  }
  if (i >= text.length) throw new FrontmatterError(`line ${no}: unterminated quoted scalar (multi-line quoted scalars are not supported)`);
  const after = stripComment(text.slice(i + 1)).trim();
  if (after !== '') throw new FrontmatterError(`line ${no}: unexpected text after a quoted scalar`);
  return out;
}

/** A one-line plain scalar typed by the YAML 1.2 core schema. */
function typedScalar(text: string, no: number): unknown {
  if (/^[&*!]/.test(text)) throw new FrontmatterError(`line ${no}: anchors, aliases and tags are not supported`);
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (/^[[{]/.test(text)) throw new FrontmatterError(`line ${no}: flow collections are not supported`);
  if (/^[@`%]/.test(text)) throw new FrontmatterError(`line ${no}: a plain scalar may not start with ${text[0]}`);
  if (/^(?:~|null|Null|NULL)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  let number: number | undefined;
  if (/^[-+]?[0-9]+$/.test(text)) number = Number(text);
  else if (/^0o[0-7]+$/.test(text)) number = parseInt(text.slice(2), 8);
  else if (/^0x[0-9a-fA-F]+$/.test(text)) number = parseInt(text.slice(2), 16);
  else if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) number = Number(text);
  else if (/^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/.test(text)) throw new FrontmatterError(`line ${no}: .inf and .nan have no JSON form`);
  if (number === undefined) return text;
  if (!Number.isFinite(number) || (Number.isInteger(number) && !Number.isSafeInteger(number))) {
    throw new FrontmatterError(`line ${no}: ${text} has no exact JSON number`);
  }
  return number;
}
