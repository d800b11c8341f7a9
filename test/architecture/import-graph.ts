/**
 * The package's own import graph, read from the sources: every relative
 * `import`, `export ... from` and `import()` of every .ts file under the
 * floors, type-only imports included (a circle through types still ties two
 * modules together for a reader and for the compiler).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FLOOR_FOLDERS = ['lib', 'streams', 'transports', 'testing', 'cluster'] as const;

const SPECIFIERS = [
  /\b(?:import|export)\s[^;]*?\bfrom\s*['"]([^'"]+)['"]/gs,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
];

function sourceFiles(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Comments can name a path too; they are not imports. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Each source file (repo-relative, `/`-separated) and the files it imports. */
export function importGraph(folders: readonly string[] = FLOOR_FOLDERS): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of folders) {
    for (const file of sourceFiles(folder)) {
      const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
      const targets = new Set<string>();
      for (const pattern of SPECIFIERS) {
        for (const match of text.matchAll(pattern)) {
          const spec = match[1]!;
          if (!spec.startsWith('.')) continue;
          targets.add(relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts').split('\\').join('/'));
        }
      }
      graph.set(file.split('\\').join('/'), [...targets].sort());
    }
  }
  return graph;
}

/** The strongly connected components with more than one file (or a file importing itself): Tarjan. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}
