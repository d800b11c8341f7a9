/**
 * The limit server (limit.ts) with rxmcp's dependencies loaded first
 * (dependencies.ts), and nothing of rxmcp. Under load its peak RSS is what
 * any server on these libraries costs before a line of its own
 * (bench/micro/memory-floor.ts; issue 22's peak RSS goal).
 *
 *   node dist/bench/servers/dependency-floor.js --transport stdio|http [--port N]
 */
import './dependencies.js';

await import('./limit.js');
