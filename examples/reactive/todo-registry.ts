/**
 * The todo store (todo-store.ts) over MCP, built only from the store's
 * Observables:
 *
 * - `add_todo` is registered once: it dispatches an action.
 * - `complete_todo` and `clear_done` are bound from the state
 *   (`registry.bindTools`): `complete_todo` exists while a todo is open and
 *   lists the open ids in its schema, `clear_done` while one is done. Like
 *   the seed's view-derived tools they come and go with the state
 *   (`derived: true`), and clients hear `notifications/tools/list_changed`
 *   only when the set or a schema really changed.
 * - `todos://list` is an observable resource (`content$`): a read answers
 *   the current list, and each change of it sends
 *   `notifications/resources/updated` to every client that subscribed
 *   (resources/subscribe, or a modern subscriptions/listen).
 */
import { distinctUntilChanged, map, type Observable } from 'rxjs';
import { Registry, ToolError, type ToolDef } from '../../lib/index.js';
import type { TodoState, TodoStore } from './todo-store.js';

export const TODOS_URI = 'todos://list';

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function completeTool(store: TodoStore, openIds: readonly string[]): ToolDef {
  return {
    name: 'complete_todo',
    description: 'Marks an open todo as done.',
    inputSchema: { type: 'object', properties: { id: { type: 'string', enum: [...openIds] } }, required: ['id'] },
    handler: ({ id }) => {
      // Read at call time: the list may have moved on since this definition was bound.
      const todo = store.state.todos.find((t) => t.id === id);
      if (todo === undefined || todo.done) throw new ToolError(`todo ${String(id)} is not open`);
      store.dispatch({ type: 'complete', id: todo.id });
      return `done: ${todo.text}`;
    },
  };
}

function clearDoneTool(store: TodoStore): ToolDef {
  return {
    name: 'clear_done',
    description: 'Removes every done todo.',
    handler: () => {
      const before = store.state.todos.length;
      return `cleared ${before - store.dispatch({ type: 'clearDone' }).todos.length}`;
    },
  };
}

/** The tools the state calls for: recomputed only when the open ids or the presence of a done todo change. */
function stateTools$(store: TodoStore): Observable<ToolDef[]> {
  const clearDone = clearDoneTool(store);
  return store.state$.pipe(
    map((state) => ({ openIds: state.todos.filter((t) => !t.done).map((t) => t.id), anyDone: state.todos.some((t) => t.done) })),
    distinctUntilChanged((a, b) => a.anyDone === b.anyDone && sameIds(a.openIds, b.openIds)),
    map(({ openIds, anyDone }) => [...(openIds.length > 0 ? [completeTool(store, openIds)] : []), ...(anyDone ? [clearDone] : [])]),
  );
}

function listText(state: TodoState): string {
  return JSON.stringify(state.todos);
}

export function todoRegistry(store: TodoStore): Registry {
  const registry = new Registry()
    .registerTool({
      name: 'add_todo',
      description: 'Adds a todo.',
      inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
      handler: ({ text }) => {
        const state = store.dispatch({ type: 'add', text });
        return `added ${state.todos[state.todos.length - 1]!.id}`;
      },
    })
    .registerResource({
      uri: TODOS_URI,
      name: 'todos',
      description: 'The todo list, as JSON; subscribe to hear each change.',
      mimeType: 'application/json',
      content$: store.state$.pipe(map(listText), distinctUntilChanged()),
    });
  // Held as long as the registry: the store outlives no server here. An app that
  // rebuilds its tools elsewhere keeps this Subscription and unsubscribes it.
  registry.bindTools(stateTools$(store), { derived: true });
  return registry;
}
