#!/usr/bin/env node
/**
 * The reactive example over stdio: a todo store exposed as MCP tools and an
 * observable resource (todo-registry.ts). Its state is logged to stderr as it
 * changes, from the same Observables the server reads, plus the server's
 * own `stats$`. Run it: `node dist/examples/reactive/main.js` (stdout is the
 * wire; everything else is on stderr).
 */
import { createServer } from '../../lib/index.js';
import { serveStdio } from '../../transports/index.js';
import { TodoStore } from './todo-store.js';
import { todoRegistry } from './todo-registry.js';

const store = new TodoStore();
const server = createServer({ registry: todoRegistry(store), name: 'rxmcp-reactive-todos', statsIntervalMs: 5000 });
const log = (line: string) => process.stderr.write(`${line}\n`);

const watching = store.state$.subscribe((state) => log(`todos: ${state.todos.map((t) => `${t.done ? '[x]' : '[ ]'} ${t.id} ${t.text}`).join(', ') || '(none)'}`));
watching.add(server.stats$.subscribe((stats) => log(`stats: ${stats.connections} connection(s), ${stats.inFlight} in flight, ${stats.resourceSubscriptions} subscription(s)`)));

const stdio = serveStdio(server);
await stdio.closed;
watching.unsubscribe();
server.close();
