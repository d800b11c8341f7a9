/**
 * loadSkillsFolder: a SkillCatalog from a folder of skills on disk. Every
 * folder under `root` holding a `SKILL.md` is a skill, at its path under
 * `root` (`root/acme/billing/refunds/SKILL.md` is
 * `skill://acme/billing/refunds/SKILL.md`); a skill's files are everything
 * under its folder, nested skills included (SEP-2640: they are its
 * supporting files too). Files outside every skill are not read.
 *
 * A folder may be hostile (a checkout, an upload), so the load is bounded
 * and fail-closed, a SkillLoadError naming every problem rather than a
 * partial catalog:
 * - nothing outside `root` is ever opened: a symlink anywhere is refused
 *   (never followed), each file is opened with O_NOFOLLOW and checked to be
 *   a regular file by its descriptor, and anything but regular files and
 *   folders (devices, FIFOs, sockets) is refused;
 * - sizes come from the directory walk before any content is read: a file
 *   over `maxFileBytes`, a skill over its limits, or a folder over
 *   `maxTotalBytes` is refused without reading it, and a read never takes
 *   more than the size it was checked at (a file that grew is refused);
 * - the walk stops at `maxEntries` entries and `maxDepth` levels;
 * - names starting with `.` are skipped (not served); other names must be
 *   plain segments (letters, digits, `._~-`), the URI they become.
 * The content is then held in memory (within `maxTotalBytes`): no request
 * ever touches the disk.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainPath, resolveSkillLimits, SkillCatalog, SkillLoadError, type SkillDefinition, type SkillLimits } from './skill-catalog.js';

/** How `loadSkillsFolder` reads a folder: the scopes its skills require, how deep and how many entries it walks, and the catalog's limits. */
export interface SkillsFolderOptions extends SkillLimitsOption {
  /** OAuth scopes per skill path (`'acme/billing/refunds': ['billing']`), as SkillDefinition.requiredScopes. */
  readonly requiredScopes?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Entries (files and folders) the walk visits before refusing; default 20 000. */
  readonly maxEntries?: number | undefined;
  /** Folder levels under `root`; default 16. */
  readonly maxDepth?: number | undefined;
}

/** The SkillLimits, each optional (undefined: its default). */
export type SkillLimitsOption = { readonly [K in keyof SkillLimits]?: number | undefined };

interface Found {
  readonly path: string;
  readonly size: number;
}

async function walk(root: string, limits: { maxEntries: number; maxDepth: number; maxFileBytes: number }, problems: string[]): Promise<Found[]> {
  const found: Found[] = [];
  let entries = 0;
  const visit = async (relative: string, depth: number): Promise<void> => {
    const listing = await readdir(relative === '' ? root : join(root, relative), { withFileTypes: true });
    listing.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of listing) {
      if (++entries > limits.maxEntries) throw new SkillLoadError([`more than maxEntries (${limits.maxEntries}) files and folders under ${root}`]);
      if (dirent.name.startsWith('.')) continue;
      const path = relative === '' ? dirent.name : `${relative}/${dirent.name}`;
      if (!isPlainPath(dirent.name)) {
        problems.push(`${path}: names must be plain (letters, digits, ._~-), the URI they become`);
        continue;
      }
      if (dirent.isSymbolicLink()) problems.push(`${path}: a symlink; skills are read only from regular files inside the folder`);
      else if (dirent.isDirectory()) {
        if (depth + 1 > limits.maxDepth) problems.push(`${path}: deeper than maxDepth (${limits.maxDepth})`);
        else await visit(path, depth + 1);
      } else if (dirent.isFile()) {
        const handle = await open(join(root, path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        try {
          const stat = await handle.stat();
          if (!stat.isFile()) problems.push(`${path}: not a regular file`);
          else if (stat.size > limits.maxFileBytes) problems.push(`${path}: ${stat.size} bytes, more than maxFileBytes (${limits.maxFileBytes})`);
          else found.push({ path, size: stat.size });
        } finally {
          await handle.close();
        }
      } else problems.push(`${path}: not a regular file or folder`);
    }
  };
  await visit('', 0);
  return found;
}

/** Reads exactly `size` bytes of a regular file under root, refusing one that is now a link, not a file, or bigger. */
async function readBounded(root: string, found: Found): Promise<Uint8Array> {
  const handle = await open(join(root, found.path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size !== found.size) throw new SkillLoadError([`${found.path}: changed while loading`]);
    const bytes = new Uint8Array(found.size + 1);
    let read = 0;
    while (read < bytes.length) {
      const { bytesRead } = await handle.read(bytes, read, bytes.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    if (read !== found.size) throw new SkillLoadError([`${found.path}: changed while loading`]);
    return bytes.subarray(0, found.size);
  } finally {
    await handle.close();
  }
}

/**
 * A catalog of the skills in `root`: one folder per skill holding its
 * `SKILL.md` and files, walked within bounds; symlinks out of the folder,
 * special files and names that are not plain segments are refused, and any
 * problem fails the whole load (SkillLoadError).
 */
export async function loadSkillsFolder(root: string, options: SkillsFolderOptions = {}): Promise<SkillCatalog> {
  const { requiredScopes = {}, maxEntries = 20_000, maxDepth = 16, ...given } = options;
  const limits = resolveSkillLimits(given);
  const problems: string[] = [];
  const found = await walk(root, { maxEntries, maxDepth, maxFileBytes: limits.maxFileBytes }, problems);
  const skillPaths = found.filter((f) => f.path.endsWith('/SKILL.md')).map((f) => f.path.slice(0, -'/SKILL.md'.length));
  if (found.some((f) => f.path === 'SKILL.md')) problems.push(`SKILL.md at the folder's root: put each skill in a folder of its own, named as the skill`);
  const served = found.filter((f) => skillPaths.some((skill) => f.path.startsWith(`${skill}/`)));
  const total = served.reduce((sum, f) => sum + f.size, 0);
  if (total > limits.maxTotalBytes) problems.push(`${total} bytes of skills, more than maxTotalBytes (${limits.maxTotalBytes})`);
  for (const path of Object.keys(requiredScopes)) if (!skillPaths.includes(path)) problems.push(`requiredScopes names ${path}, which is not a skill in the folder`);
  if (problems.length > 0) throw new SkillLoadError(problems);
  const bytes = new Map<string, Uint8Array>();
  for (const f of served) bytes.set(f.path, await readBounded(root, f));
  const skills: SkillDefinition[] = skillPaths.map((skill) => ({
    path: skill,
    files: Object.fromEntries([...bytes].filter(([path]) => path.startsWith(`${skill}/`)).map(([path, content]) => [path.slice(skill.length + 1), content])),
    requiredScopes: requiredScopes[skill],
  }));
  return SkillCatalog.of(skills, limits);
}
