/**
 * The limit server (limit.ts) with rxmcp's dependencies loaded first and
 * kept alive, and nothing of rxmcp: rxjs, ajv with its formats and one JSON
 * Schema compiled (as the library's bundle runs it, the meta-schema check
 * made at build time), and a pino logger. Under load its peak RSS is what
 * any server on these libraries costs before a line of its own
 * (bench/micro/memory-floor.ts; issue 22's peak RSS goal).
 *
 *   node dist/bench/servers/dependency-floor.js --transport stdio|http [--port N]
 */
import * as rxjs from 'rxjs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { pino } from 'pino';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false }));
const kept: unknown[] = [
  rxjs,
  ajv.compile({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
  pino({ level: 'info' }, process.stderr),
];
(globalThis as { dependencyFloor?: unknown[] }).dependencyFloor = kept;

await import('./limit.js');
