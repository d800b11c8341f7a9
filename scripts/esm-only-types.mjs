// Writes the typings of the `require` condition (package.json "exports"):
// for each entry point, a .d.cts declaring every name the entry exports as a
// type whose NAME is the fix, so `tsc` rejects a CommonJS use of rxmcp at
// compile time ("Type 'rxmcp_is_ES_modules_only__set_type_module_in_package_json'
// has no call signatures") instead of letting it compile into a require()
// that throws at run time. Run by `npm run build`, after tsc, from the built
// .d.ts files, so the names never drift from the real exports.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'esm-only');
const FIX = 'rxmcp_is_ES_modules_only__set_type_module_in_package_json';

/** The names a built .d.ts exports (its `export * from` followed). */
function exportedNames(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const names = [];
  for (const [, list] of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const item of list.split(',')) {
      const name = item.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  for (const [, name] of text.matchAll(/^export (?:declare )?(?:abstract )?(?:const|let|function|class|interface|type|enum|namespace) (\w+)/gm)) names.push(name);
  for (const [, name] of text.matchAll(/^export \* as (\w+) from/gm)) names.push(name);
  for (const [, from] of text.matchAll(/^export \* from '([^']+)'/gm)) {
    names.push(...exportedNames(resolve(dirname(file), from.replace(/\.js$/, '.d.ts')), seen));
  }
  return [...new Set(names)].sort();
}

function stub(entry, names) {
  const specifier = entry === '.' ? 'rxmcp' : `rxmcp/${entry.slice(2)}`;
  const lines = [
    `// What \`require('${specifier}')\` is typed as: rxmcp is ES modules only. Every name below is the`,
    `// type ${FIX}, so using it in a CommonJS module is a compile error naming the fix:`,
    `// set "type": "module" in your package.json (or write .mts files), or use \`await import('${specifier}')\`.`,
    'declare const esmOnly: unique symbol;',
    `type ${FIX} = { readonly [esmOnly]: 'rxmcp is ES modules only: set "type": "module" in your package.json, or use await import(\\'${specifier}\\')' };`,
  ];
  // A short alias of the named type: tsc still prints the type's own name, the fix.
  lines.push(`type E = ${FIX};`);
  // One declaration of every value, then every type (generic, so ToolDef<I, O> still names the fix).
  lines.push(`export declare const ${names.map((name) => `${name}: E`).join(', ')};`);
  for (const name of names) lines.push(`export type ${name}<A = 0, B = 0, C = 0, D = 0> = E;`);
  return `${lines.join('\n')}\n`;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
mkdirSync(OUT, { recursive: true });
for (const [entry, conditions] of Object.entries(pkg.exports)) {
  const types = conditions?.require?.types;
  if (typeof types !== 'string') continue;
  const source = conditions.import.types;
  writeFileSync(join(ROOT, types), stub(entry, exportedNames(join(ROOT, source))));
}
