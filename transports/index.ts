export { connectInMemory, MemoryClientTransport } from './memory.js';
export type { MemoryConnection, MemoryConnectionOptions } from './memory.js';
export { mintConnId } from './conn-id.js';
export { serveStdio, DEFAULT_MAX_LINE_BYTES } from './stdio.js';
export type { StdioHandle, StdioOptions } from './stdio.js';
