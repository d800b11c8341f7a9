/** A micro-benchmark's `--name value` option from its command line, or `fallback` when it is not given. */
export function option(name: string, fallback: string, argv: readonly string[] = process.argv.slice(2)): string {
  const at = argv.indexOf(name);
  return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1]! : fallback;
}
