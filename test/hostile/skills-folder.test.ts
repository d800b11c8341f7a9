/**
 * A hostile skills folder: loadSkillsFolder never leaves the folder and
 * never reads what it refuses. A symlink (to a file or a folder outside) is
 * refused, not followed; a huge file is refused from its size alone (a
 * sparse 8 GiB file: reading it would not finish); a FIFO is refused, not
 * opened; and a directory read with a traversal finds nothing, since no
 * request touches the disk.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createServer, loadSkillsFolder, Registry, SkillLoadError, skillsExtension } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`;

let base: string;
let root: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'rxmcp-skills-'));
  root = join(base, 'skills');
  mkdirSync(join(root, 'notes', 'templates'), { recursive: true });
  writeFileSync(join(root, 'notes', 'SKILL.md'), skillMd('notes'));
  writeFileSync(join(root, 'notes', 'templates', 'day.md'), '# Day\n');
  writeFileSync(join(base, 'secret.txt'), 'outside the folder');
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

async function problemsOf(load: Promise<unknown>): Promise<string> {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SkillLoadError);
  return (error as SkillLoadError).problems.join('\n');
}

describe('a clean folder', () => {
  test('loads every skill with its files; hidden entries and files outside skills are not served', async () => {
    writeFileSync(join(root, 'notes', '.env'), 'SECRET=1');
    writeFileSync(join(root, 'README.md'), 'not a skill');
    const catalog = await loadSkillsFolder(root);
    expect(catalog.entries.map((e) => e.resources.map((r) => r.uri))).toEqual([['skill://notes/SKILL.md', 'skill://notes/templates/day.md']]);
    expect(catalog.file('skill://notes/.env')).toBeUndefined();
    expect(catalog.file('skill://README.md')).toBeUndefined();
  });
});

describe('refused, never followed or read', () => {
  test('a symlink to a file outside the folder', async () => {
    symlinkSync(join(base, 'secret.txt'), join(root, 'notes', 'leak.md'));
    expect(await problemsOf(loadSkillsFolder(root))).toMatch(/notes\/leak.md: a symlink/);
  });

  test('a symlink to a folder outside the folder', async () => {
    symlinkSync(base, join(root, 'notes', 'up'));
    expect(await problemsOf(loadSkillsFolder(root))).toMatch(/notes\/up: a symlink/);
  });

  test('a huge (sparse, 8 GiB) file, from its size alone', async () => {
    const huge = join(root, 'notes', 'huge.bin');
    writeFileSync(huge, '');
    truncateSync(huge, 8 * 1024 ** 3);
    expect(await problemsOf(loadSkillsFolder(root))).toMatch(/notes\/huge.bin: 8589934592 bytes, more than maxFileBytes/);
  });

  test('many files that together pass maxTotalBytes, before any is read', async () => {
    for (let i = 0; i < 4; i++) writeFileSync(join(root, 'notes', `part${i}.txt`), 'x'.repeat(100));
    expect(await problemsOf(loadSkillsFolder(root, { maxTotalBytes: 300 }))).toMatch(/more than maxTotalBytes \(300\)/);
  });

  test('too many entries stops the walk', async () => {
    for (let i = 0; i < 20; i++) writeFileSync(join(root, 'notes', `f${i}.txt`), 'x');
    expect(await problemsOf(loadSkillsFolder(root, { maxEntries: 10 }))).toMatch(/maxEntries/);
  });

  test('a FIFO is refused without being opened (opening one would block)', async () => {
    execFileSync('mkfifo', [join(root, 'notes', 'pipe')]);
    expect(await problemsOf(loadSkillsFolder(root))).toMatch(/notes\/pipe: not a regular file/);
  });

  test('a name that is not a plain URI segment', async () => {
    writeFileSync(join(root, 'notes', 'with space.md'), 'x');
    expect(await problemsOf(loadSkillsFolder(root))).toMatch(/with space.md: names must be plain/);
  });
});

describe('path traversal in a directory read', () => {
  test('every traversal or escape is -32602; the folder outside is never listed', async () => {
    const server = createServer({ registry: new Registry(), extensions: [skillsExtension(await loadSkillsFolder(root))] });
    for (const uri of ['skill://notes/..', 'skill://notes/../..', 'skill://notes/templates/../../../', 'skill://notes/%2e%2e/%2e%2e', 'skill://..', 'skill:///etc', 'file:///']) {
      expect(await server.handleMessage(modernRpc(1, 'resources/directory/read', { uri }))).toMatchObject({ error: { code: -32602 } });
    }
    expect(await server.handleMessage(modernRpc(2, 'resources/read', { uri: 'skill://notes/../secret.txt' }))).toMatchObject({ error: { code: -32602 } });
  });
});
