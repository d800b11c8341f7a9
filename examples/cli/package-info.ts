/**
 * The served module's identity: `name` and `version` from the package.json
 * nearest to the module file (its folder, then each parent). They become
 * serverInfo's defaults, so a client sees the user's server, not "rxmcp".
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface PackageInfo {
  readonly name?: string;
  readonly version?: string;
}

function readPackageJson(path: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {}; // a broken package.json is still the nearest one: it names nothing
  }
}

export function nearestPackageInfo(modulePath: string): PackageInfo {
  for (let dir = dirname(modulePath); ; dir = dirname(dir)) {
    const pkg = readPackageJson(join(dir, 'package.json'));
    if (pkg !== undefined) {
      return {
        ...(typeof pkg.name === 'string' && pkg.name !== '' ? { name: pkg.name } : {}),
        ...(typeof pkg.version === 'string' && pkg.version !== '' ? { version: pkg.version } : {}),
      };
    }
    if (dirname(dir) === dir) return {};
  }
}
