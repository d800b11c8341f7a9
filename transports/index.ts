export { connectInMemory, MemoryClientTransport } from './memory.js';
export type { MemoryConnection, MemoryConnectionOptions } from './memory.js';
export { mintConnId } from './conn-id.js';
