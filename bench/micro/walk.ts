/**
 * The walk of one stdio tools/call, from the wire to the handler and back:
 * which of the package's files (and functions) run for it. V8's precise
 * coverage with call counts is taken around exactly one call on a warmed-up
 * server (initialize and one call before it, so first-use code is out of
 * the count), over serveStdio on in-memory streams; an allowAll authorizer,
 * a synchronous handler, no middleware, nobody on events$ (the case
 * ARCHITECTURE.md and the aesthetics study walk).
 *
 *   npm run build && node dist/bench/micro/walk.js [--functions]
 *
 * Prints the files in first-entered order with their top-level folder, the
 * crossings between folders, and the count.
 */
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { dirname, relative } from 'node:path';
import { allowAll, createServer, Registry } from '../../lib/index.js';
import { countedStdio } from './counted-stdio.js';

const root = relative(process.cwd(), dirname(dirname(dirname(fileURLToPath(import.meta.url)))));
const showFunctions = process.argv.includes('--functions');

const registry = new Registry().registerTool({ name: 'echo', handler: ({ text }) => String(text) });
const server = createServer({ registry, authorizer: allowAll(), authorizerSource: 'configured' });
const { input, until } = countedStdio(server);
const line = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
const call = (id: number) => line({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });

line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'walk', version: '1' } } });
line({ jsonrpc: '2.0', method: 'notifications/initialized' });
call(1);
await until(2);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage'); // reset the counts
call(2);
await until(3);
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();

const ours = `${dirname(dirname(dirname(fileURLToPath(import.meta.url))))}/`;
const files: { file: string; functions: string[] }[] = [];
for (const script of result) {
  if (!script.url.startsWith('file://')) continue;
  const path = fileURLToPath(script.url);
  if (!path.startsWith(ours) || path.includes('/node_modules/') || path.includes('/bench/')) continue;
  const entered = script.functions.filter((f) => f.functionName !== '' && f.ranges[0]!.count > 0).map((f) => f.functionName);
  if (entered.length > 0) files.push({ file: relative(ours, path).replace(/^dist\//, ''), functions: entered });
}
files.sort((a, b) => a.file.localeCompare(b.file));
const folders = new Set(files.map((f) => f.file.split('/')[0]));
for (const { file, functions } of files) console.log(showFunctions ? `${file}: ${functions.join(', ')}` : file);
console.log(`\n${files.length} files, ${files.reduce((n, f) => n + f.functions.length, 0)} functions, folders: ${[...folders].join(', ')} (${root || '.'})`);
server.close();
process.exit(0);
