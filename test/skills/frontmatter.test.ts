/**
 * The frontmatter subset: what it reads is what a YAML 1.2 parser reads
 * (core-schema typing, folding, block scalars), and what it cannot be sure
 * of it refuses, naming the line.
 */
import { describe, expect, test } from 'vitest';
import { FrontmatterError, parseFrontmatter } from '../../lib/index.js';

const fm = (yaml: string) => parseFrontmatter(`---\n${yaml}\n---\n# body\n`);

describe('what it reads', () => {
  test('scalars typed by the core schema, quoted strings kept as strings', () => {
    expect(
      fm(
        'name: pdf\ndescription: Fill forms # a comment\nversion: 2.1\ncount: 3\nhex: 0x1f\non: true\noff: False\nnothing: ~\nempty:\nquoted: "2.1"\nsingle: \'it\'\'s\'\nescaped: "a\\tb\\u00e9"',
      ),
    ).toEqual({ name: 'pdf', description: 'Fill forms', version: 2.1, count: 3, hex: 31, on: true, off: false, nothing: null, empty: null, quoted: '2.1', single: "it's", escaped: 'a\tbé' });
  });

  test('nested mappings, sequences of scalars, empty flow collections', () => {
    expect(fm('metadata:\n  author: me\n  deep:\n    x: "1"\ntags:\n  - one\n  - 2\nnone: []\nnil: {}')).toEqual({
      metadata: { author: 'me', deep: { x: '1' } },
      tags: ['one', 2],
      none: [],
      nil: {},
    });
  });

  test('a plain scalar continued on deeper lines is folded; block scalars keep or fold lines', () => {
    expect(fm('description: a long\n  description here\nliteral: |\n  line one\n  line two\nfolded: >-\n  one\n  two\n\n  three')).toEqual({
      description: 'a long description here',
      literal: 'line one\nline two\n',
      folded: 'one two\nthree',
    });
  });
});

describe('what it refuses', () => {
  test.each([
    ['anchors', 'a: &x 1'],
    ['aliases', 'a: *x'],
    ['tags', 'a: !!str 1'],
    ['flow collections with content', 'a: [1, 2]'],
    ['duplicate keys', 'a: 1\na: 2'],
    ['a mapping in a sequence', 'a:\n  - b: 1'],
    ['": " in a plain scalar', 'a: b: c'],
    ['tabs in indentation', 'a:\n\tb: 1'],
    ['.inf', 'a: .inf'],
    ['an integer JSON cannot hold', 'a: 123456789012345678901'],
    ['a multi-line quoted scalar', 'a: "one\n  two"'],
  ])('%s', (_what, yaml) => {
    expect(() => fm(yaml)).toThrow(FrontmatterError);
  });

  test('no frontmatter at all', () => {
    expect(() => parseFrontmatter('# just markdown')).toThrow(/must begin with/);
  });
});
