/**
 * SkillCatalog: the skills one server serves (SEP-2640), built once from
 * their files (in code, or read from a folder by loadSkillsFolder) and then
 * immutable: every entry's `frontmatter` parsed from its own SKILL.md, its
 * `resources` the complete list of its files with SHA-256 digests and sizes,
 * and the directory tree `resources/directory/read` answers from. Nothing is
 * read from disk after it is built, so no request can reach a file the
 * catalog does not hold.
 *
 * Bounded when built (a SkillLoadError naming every problem, never a partial
 * catalog): the number of skills, files per skill (512, the SEP's limit),
 * bytes per file, bytes per skill (16 MiB, the SEP's limit) and bytes in all.
 * Paths are plain: segments of letters, digits and `._~-`, never `.` or
 * `..`; a skill's last segment is its frontmatter `name`, which must follow
 * the Agent Skills naming rules.
 */
import { createHash } from 'node:crypto';
import { FrontmatterError, parseFrontmatter } from './frontmatter.js';
import { mimeTypeOf } from './mime-types.js';

/** The Skills extension's identifier (SEP-2640), the key of its capability. */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
export const SKILL_SCHEME = 'skill://';
/** The MIME type a skill's directory is read as (SEP-2640's directory read). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** The bounds of a skill catalog: how many skills, files per skill, bytes per file, per skill and in all. */
export interface SkillLimits {
  /** Skills in the catalog; default 1000. */
  readonly maxSkills: number;
  /** Files per skill, SKILL.md included; default 512 (SEP-2640's limit). */
  readonly maxFilesPerSkill: number;
  /** Bytes of one file; default 1 MiB. */
  readonly maxFileBytes: number;
  /** Bytes of one skill's files; default 16 MiB (SEP-2640's limit). */
  readonly maxSkillBytes: number;
  /** Bytes of every file the catalog holds (it holds them in memory); default 64 MiB. */
  readonly maxTotalBytes: number;
}

/** 1000 skills, 512 files a skill, 1 MiB a file, 16 MiB a skill, 64 MiB in all. */
export const DEFAULT_SKILL_LIMITS: SkillLimits = Object.freeze({
  maxSkills: 1000,
  maxFilesPerSkill: 512,
  maxFileBytes: 1024 * 1024,
  maxSkillBytes: 16 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
});

/** The bounds with the defaults filled in; an undefined field is its default, anything but a positive integer is refused. */
export function resolveSkillLimits(limits: { readonly [K in keyof SkillLimits]?: number | undefined } = {}): SkillLimits {
  const resolved: Record<string, number> = { ...DEFAULT_SKILL_LIMITS };
  for (const key of Object.keys(DEFAULT_SKILL_LIMITS) as Array<keyof SkillLimits>) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) throw new SkillLoadError([`${key} must be a positive integer, got ${String(value)}`]);
    resolved[key] = value;
  }
  return resolved as unknown as SkillLimits;
}

/** One skill given in code. */
export interface SkillDefinition {
  /** Where it sits in the namespace: `git-workflow`, or `acme/billing/refunds`; the last segment is its `name`. */
  readonly path: string;
  /** Its files by path under the skill's folder (`SKILL.md`, `references/GUIDE.md`): text or bytes. */
  readonly files: Readonly<Record<string, string | Uint8Array>>;
  /** OAuth scopes a caller's principal must hold to see it listed, get it and read its files. */
  readonly requiredScopes?: readonly string[] | undefined;
}

/** One file of a skill as its entry lists it: its URI, its content's digest and its size in bytes. */
export interface SkillResourceEntry {
  readonly uri: string;
  readonly digest: string;
  readonly size: number;
}

/** A skill's entry, exactly as skills/list and skills/get publish it. */
export interface SkillEntry {
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, unknown>> & { readonly name: string; readonly description: string };
  readonly resources: readonly SkillResourceEntry[];
}

/** One file of the catalog, as it is served on a read. */
export interface SkillFile {
  readonly uri: string;
  /** The file's path from the namespace root (`pdf-processing/references/FORMS.md`). */
  readonly path: string;
  readonly bytes: Uint8Array;
  /** The content as text when it is UTF-8 (read back as `text`), else undefined (read back as a base64 `blob`). */
  readonly text: string | undefined;
  readonly mimeType: string;
  /** Every scope of every skill that holds the file. */
  readonly requiredScopes: readonly string[];
}

/** A directory's child as resources/directory/read lists it. */
export interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  /** A file's size; absent for a directory. */
  readonly size?: number;
}

/** Skills that could not be loaded: every problem found, not just the first (the catalog is all or nothing). */
export class SkillLoadError extends Error {
  override name = 'SkillLoadError';
  constructor(readonly problems: readonly string[]) {
    super(`skills refused: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (+${problems.length - 5} more)` : ''}`);
  }
}

const SEGMENT = /^[A-Za-z0-9._~-]+$/;
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether `path` is `/`-separated plain segments (no `.`, `..`, empty segment or escape). */
export function isPlainPath(path: string): boolean {
  return path.length > 0 && path.split('/').every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
}

function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function textOf(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * The skills a server serves, checked against their limits and frozen: what
 * `skills/list`, `skills/get` and the reads answer from. `SkillCatalog.of`
 * builds one from code; `loadSkillsFolder` from a folder of `SKILL.md` files.
 */
export class SkillCatalog {
  /** The entries, sorted by URI, frozen: exactly what clients receive. */
  readonly entries: readonly SkillEntry[];
  private readonly byUri: ReadonlyMap<string, { readonly entry: SkillEntry; readonly requiredScopes: readonly string[] }>;
  private readonly files: ReadonlyMap<string, SkillFile>;
  private readonly directories: ReadonlyMap<string, readonly DirectoryChild[]>;

  private constructor(
    entries: Map<string, { entry: SkillEntry; requiredScopes: readonly string[] }>,
    files: Map<string, SkillFile>,
    directories: Map<string, DirectoryChild[]>,
  ) {
    this.byUri = entries;
    this.entries = Object.freeze([...entries.values()].map((e) => e.entry));
    this.files = files;
    this.directories = directories;
  }

  /** The catalog of these skills; a SkillLoadError naming every problem when any is refused. */
  static of(skills: readonly SkillDefinition[], limits: { readonly [K in keyof SkillLimits]?: number | undefined } = {}): SkillCatalog {
    const bounds = resolveSkillLimits(limits);
    const problems: string[] = [];
    if (skills.length > bounds.maxSkills) throw new SkillLoadError([`${skills.length} skills, more than maxSkills (${bounds.maxSkills})`]);
    const bytesByPath = new Map<string, Uint8Array>();
    const scopesByPath = new Map<string, Set<string>>();
    const skillPaths = new Map<string, readonly string[]>();
    let total = 0;
    for (const skill of skills) {
      if (!isPlainPath(skill.path)) {
        problems.push(`skill path ${JSON.stringify(skill.path)} must be plain segments (letters, digits, ._~-; no . or ..)`);
        continue;
      }
      if (skillPaths.has(skill.path)) problems.push(`skill ${skill.path} is given twice`);
      skillPaths.set(skill.path, skill.requiredScopes ?? []);
      if (!Object.hasOwn(skill.files, 'SKILL.md')) problems.push(`skill ${skill.path} has no SKILL.md`);
      for (const [relative, content] of Object.entries(skill.files)) {
        const path = `${skill.path}/${relative}`;
        if (!isPlainPath(relative)) {
          problems.push(`${path}: file paths must be plain segments (letters, digits, ._~-; no . or ..)`);
          continue;
        }
        const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
        if (bytes.byteLength > bounds.maxFileBytes) problems.push(`${path}: ${bytes.byteLength} bytes, more than maxFileBytes (${bounds.maxFileBytes})`);
        const known = bytesByPath.get(path);
        if (known !== undefined && Buffer.compare(known, bytes) !== 0) problems.push(`${path} is given twice with different content`);
        if (known === undefined) total += bytes.byteLength;
        bytesByPath.set(path, bytes);
      }
    }
    if (total > bounds.maxTotalBytes) problems.push(`${total} bytes in all, more than maxTotalBytes (${bounds.maxTotalBytes})`);
    if (problems.length > 0) throw new SkillLoadError(problems);

    const entries = new Map<string, { entry: SkillEntry; requiredScopes: readonly string[] }>();
    for (const [skillPath, requiredScopes] of [...skillPaths].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const uri = `${SKILL_SCHEME}${skillPath}/SKILL.md`;
      const own = [...bytesByPath.keys()].filter((path) => path.startsWith(`${skillPath}/`)).sort();
      let frontmatter: Record<string, unknown>;
      try {
        frontmatter = parseFrontmatter(textOf(bytesByPath.get(`${skillPath}/SKILL.md`)!) ?? '');
      } catch (error) {
        problems.push(`${skillPath}/SKILL.md: ${error instanceof FrontmatterError ? error.message : String(error)}`);
        continue;
      }
      const { name, description } = frontmatter;
      const last = skillPath.slice(skillPath.lastIndexOf('/') + 1);
      if (typeof name !== 'string' || !SKILL_NAME.test(name)) problems.push(`${skillPath}/SKILL.md: name must be 1-64 lowercase letters, digits and single hyphens`);
      else if (name !== last) problems.push(`${skillPath}/SKILL.md: name ${JSON.stringify(name)} must equal the skill's last path segment ${JSON.stringify(last)}`);
      if (typeof description !== 'string' || description.length === 0 || description.length > 1024) problems.push(`${skillPath}/SKILL.md: description must be a string of 1-1024 characters`);
      const sizes = own.map((path) => bytesByPath.get(path)!.byteLength);
      const bytes = sizes.reduce((a, b) => a + b, 0);
      if (own.length > bounds.maxFilesPerSkill) problems.push(`skill ${skillPath}: ${own.length} files, more than maxFilesPerSkill (${bounds.maxFilesPerSkill})`);
      if (bytes > bounds.maxSkillBytes) problems.push(`skill ${skillPath}: ${bytes} bytes, more than maxSkillBytes (${bounds.maxSkillBytes})`);
      for (const path of own) {
        const scopes = scopesByPath.get(path) ?? new Set<string>();
        for (const scope of requiredScopes) scopes.add(scope);
        scopesByPath.set(path, scopes);
      }
      const ordered = [`${skillPath}/SKILL.md`, ...own.filter((path) => path !== `${skillPath}/SKILL.md`)];
      const resources = ordered.map((path) => ({ uri: `${SKILL_SCHEME}${path}`, digest: digestOf(bytesByPath.get(path)!), size: bytesByPath.get(path)!.byteLength }));
      const entry = deepFreeze({ uri, frontmatter, resources }) as unknown as SkillEntry;
      entries.set(uri, { entry, requiredScopes: Object.freeze([...requiredScopes]) });
    }
    if (problems.length > 0) throw new SkillLoadError(problems);

    const files = new Map<string, SkillFile>();
    const children = new Map<string, Map<string, DirectoryChild>>();
    for (const [path, bytes] of bytesByPath) {
      const scopes = scopesByPath.get(path);
      // A file under no skill's folder (a skill's path given without its own files) is not served.
      if (scopes === undefined) continue;
      const uri = `${SKILL_SCHEME}${path}`;
      const text = textOf(bytes);
      const mimeType = mimeTypeOf(path, text !== undefined);
      files.set(uri, Object.freeze({ uri, path, bytes, text, mimeType, requiredScopes: Object.freeze([...scopes].sort()) }));
      const segments = path.split('/');
      for (let depth = 1; depth < segments.length; depth++) {
        const dir = `${SKILL_SCHEME}${segments.slice(0, depth).join('/')}`;
        const leaf = depth === segments.length - 1;
        const childUri = `${dir}/${segments[depth]}`;
        const child: DirectoryChild = leaf
          ? { uri: childUri, name: segments[depth]!, mimeType, size: bytes.byteLength }
          : { uri: childUri, name: segments[depth]!, mimeType: DIRECTORY_MIME_TYPE };
        const map = children.get(dir) ?? new Map<string, DirectoryChild>();
        map.set(childUri, Object.freeze(child));
        children.set(dir, map);
      }
    }
    const directories = new Map<string, DirectoryChild[]>();
    for (const [dir, map] of children) directories.set(dir, [...map.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)));
    return new SkillCatalog(entries, files, directories);
  }

  /** The skill whose SKILL.md is at `uri`, with its scopes; undefined when none is served there. */
  skill(uri: string): { readonly entry: SkillEntry; readonly requiredScopes: readonly string[] } | undefined {
    return this.byUri.get(uri);
  }

  /** The skills, each with its scopes, in URI order. */
  skills(): ReadonlyArray<{ readonly entry: SkillEntry; readonly requiredScopes: readonly string[] }> {
    return [...this.byUri.values()];
  }

  /** The file at `uri`; undefined when the catalog holds none. */
  file(uri: string): SkillFile | undefined {
    return this.files.get(uri);
  }

  /** Every file, for registering them as resources. */
  allFiles(): readonly SkillFile[] {
    return [...this.files.values()];
  }

  /** The direct children of the directory at `uri` (no trailing slash); undefined when it is not a directory here. */
  directory(uri: string): readonly DirectoryChild[] | undefined {
    return this.directories.get(uri);
  }
}
