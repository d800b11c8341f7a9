/**
 * rxmcp's dependencies, loaded and kept alive, and nothing of rxmcp: rxjs,
 * ajv with its formats and one JSON Schema compiled (as the library's bundle
 * runs it, the meta-schema check made at build time), and a pino logger.
 * Imported for what it loads: the memory floor under a stdio server
 * (dependency-floor.ts, bench/micro/memory-floor.ts; issue 22's peak RSS goal).
 */
import * as rxjs from 'rxjs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { pino } from 'pino';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false }));
(globalThis as { dependencies?: unknown[] }).dependencies = [
  rxjs,
  ajv.compile({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
  pino({ level: 'info' }, process.stderr),
];
