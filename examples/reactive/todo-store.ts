/**
 * The application: a todo list kept the RxJS way, as a BehaviorSubject of
 * immutable state that only actions change (a reducer, as in any Redux-like
 * store). It knows nothing of MCP; todo-registry.ts exposes it.
 */
import { BehaviorSubject, type Observable } from 'rxjs';

export interface Todo {
  readonly id: string;
  readonly text: string;
  readonly done: boolean;
}

export interface TodoState {
  readonly todos: readonly Todo[];
  /** The id the next todo gets. */
  readonly nextId: number;
}

export type TodoAction =
  | { readonly type: 'add'; readonly text: string }
  | { readonly type: 'complete'; readonly id: string }
  | { readonly type: 'clearDone' };

export const EMPTY_TODOS: TodoState = { todos: [], nextId: 1 };

/** The state after `action`; the same object when the action changes nothing. */
export function reduceTodos(state: TodoState, action: TodoAction): TodoState {
  switch (action.type) {
    case 'add':
      return { todos: [...state.todos, { id: String(state.nextId), text: action.text, done: false }], nextId: state.nextId + 1 };
    case 'complete': {
      const todo = state.todos.find((t) => t.id === action.id);
      if (todo === undefined || todo.done) return state;
      return { ...state, todos: state.todos.map((t) => (t === todo ? { ...t, done: true } : t)) };
    }
    case 'clearDone':
      return state.todos.some((t) => t.done) ? { ...state, todos: state.todos.filter((t) => !t.done) } : state;
  }
}

export class TodoStore {
  private readonly subject: BehaviorSubject<TodoState>;
  /** The current state at subscription, then each new one (an action that changes nothing emits nothing). */
  readonly state$: Observable<TodoState>;

  constructor(initial: TodoState = EMPTY_TODOS) {
    this.subject = new BehaviorSubject(initial);
    this.state$ = this.subject.asObservable();
  }

  get state(): TodoState {
    return this.subject.value;
  }

  dispatch(action: TodoAction): TodoState {
    const next = reduceTodos(this.subject.value, action);
    if (next !== this.subject.value) this.subject.next(next);
    return next;
  }
}
