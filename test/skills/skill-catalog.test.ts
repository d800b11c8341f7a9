/**
 * A catalog built in code: each entry's frontmatter is its SKILL.md's, its
 * resources are every file with its SHA-256 digest and size (nested skills'
 * files included in the enclosing one), directories are derived from the
 * files, and every refusal is named at once.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { SkillCatalog, SkillLoadError } from '../../lib/index.js';

const skillMd = (name: string, description = `The ${name} skill`) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;
const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('entries', () => {
  test('frontmatter, the complete resources list with digests and sizes, sorted by URI', () => {
    const guide = '# Guide\n';
    const catalog = SkillCatalog.of([
      { path: 'pdf', files: { 'SKILL.md': skillMd('pdf'), 'references/GUIDE.md': guide } },
      { path: 'acme/billing/refunds', files: { 'SKILL.md': skillMd('refunds') } },
    ]);
    expect(catalog.entries.map((e) => e.uri)).toEqual(['skill://acme/billing/refunds/SKILL.md', 'skill://pdf/SKILL.md']);
    const pdf = catalog.skill('skill://pdf/SKILL.md')!.entry;
    expect(pdf.frontmatter).toEqual({ name: 'pdf', description: 'The pdf skill' });
    expect(pdf.resources).toEqual([
      { uri: 'skill://pdf/SKILL.md', digest: sha(skillMd('pdf')), size: Buffer.byteLength(skillMd('pdf')) },
      { uri: 'skill://pdf/references/GUIDE.md', digest: sha(guide), size: guide.length },
    ]);
    expect(Object.isFrozen(pdf.frontmatter)).toBe(true);
  });

  test("a nested skill is an entry of its own, and its files are the enclosing skill's too", () => {
    const catalog = SkillCatalog.of([
      { path: 'outer', files: { 'SKILL.md': skillMd('outer'), 'inner/SKILL.md': skillMd('inner') } },
      { path: 'outer/inner', files: { 'SKILL.md': skillMd('inner') } },
    ]);
    expect(catalog.skill('skill://outer/SKILL.md')!.entry.resources.map((r) => r.uri)).toEqual(['skill://outer/SKILL.md', 'skill://outer/inner/SKILL.md']);
    expect(catalog.skill('skill://outer/inner/SKILL.md')!.entry.resources.map((r) => r.uri)).toEqual(['skill://outer/inner/SKILL.md']);
  });

  test('directories: each level lists its direct children, subfolders as inode/directory', () => {
    const catalog = SkillCatalog.of([{ path: 'pdf', files: { 'SKILL.md': skillMd('pdf'), 'templates/a.md': 'a', 'templates/regional/eu.md': 'eu' } }]);
    expect(catalog.directory('skill://pdf')).toEqual([
      { uri: 'skill://pdf/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(skillMd('pdf')) },
      { uri: 'skill://pdf/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
    expect(catalog.directory('skill://pdf/templates')!.map((c) => [c.name, c.mimeType])).toEqual([
      ['a.md', 'text/markdown'],
      ['regional', 'inode/directory'],
    ]);
    expect(catalog.directory('skill://pdf/SKILL.md')).toBeUndefined();
  });
});

describe('refusals, all named at once', () => {
  const refused = (run: () => unknown): readonly string[] => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(SkillLoadError);
      return (error as SkillLoadError).problems;
    }
    throw new Error('not refused');
  };

  test('a name that is not the last path segment, a bad name, no SKILL.md, a traversal in a path', () => {
    const problems = refused(() =>
      SkillCatalog.of([
        { path: 'a', files: { 'SKILL.md': skillMd('b') } },
        { path: 'Bad', files: { 'SKILL.md': skillMd('Bad') } },
        { path: 'c', files: { 'README.md': 'x' } },
        { path: 'd', files: { 'SKILL.md': skillMd('d'), '../escape.md': 'x' } },
      ]),
    );
    expect(problems.join('\n')).toMatch(/no SKILL.md/);
    expect(problems.join('\n')).toMatch(/plain segments/);
  });

  test('bounds: bytes per file, files per skill, bytes per skill, skills', () => {
    const md = skillMd('a');
    expect(refused(() => SkillCatalog.of([{ path: 'a', files: { 'SKILL.md': md, 'big.txt': 'x'.repeat(101) } }], { maxFileBytes: 100 })).join()).toMatch(
      /a\/big.txt: 101 bytes, more than maxFileBytes/,
    );
    expect(refused(() => SkillCatalog.of([{ path: 'a', files: { 'SKILL.md': md, '1.txt': '1', '2.txt': '2' } }], { maxFilesPerSkill: 2 })).join()).toMatch(/3 files/);
    expect(refused(() => SkillCatalog.of([{ path: 'a', files: { 'SKILL.md': md, '1.txt': 'x'.repeat(60) } }], { maxSkillBytes: 60 })).join()).toMatch(/maxSkillBytes/);
    const two = [
      { path: 'a', files: { 'SKILL.md': md } },
      { path: 'b', files: { 'SKILL.md': skillMd('b') } },
    ];
    expect(refused(() => SkillCatalog.of(two, { maxSkills: 1 })).join()).toMatch(/maxSkills/);
    expect(refused(() => SkillCatalog.of(two, { maxTotalBytes: md.length + 1 })).join()).toMatch(/maxTotalBytes/);
  });

  test('the frontmatter name must be the last path segment', () => {
    expect(refused(() => SkillCatalog.of([{ path: 'a', files: { 'SKILL.md': skillMd('b') } }])).join()).toMatch(/must equal the skill's last path segment/);
  });
});
