/** Contract: serverInfo.version defaults to this package's version, so PACKAGE_VERSION must track package.json. */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { PACKAGE_VERSION } from '../../lib/version.js';

test('lib/version.ts PACKAGE_VERSION equals package.json version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(PACKAGE_VERSION).toBe(pkg.version);
});
