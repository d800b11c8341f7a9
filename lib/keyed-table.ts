/**
 * One kind of definition the registry holds (tools, resources, prompts),
 * keyed by name or URI, each entry held by whoever put it there: a call
 * (`registerTool`, ...) or one binding (`bindTools`, ...: an Observable of
 * whole sets). The holder is kept on the entry, so which names a binding
 * owns is never a second table that could drift from the first.
 *
 * The one rule for conflicts: a key belongs to one holder. A call may not
 * register or unregister a key a binding holds (even with `replace`), and a
 * binding may not take a key a call or another binding holds. Breaking it is
 * a ConfigError naming the key and both holders, raised before anything
 * changes (a set is applied all or none).
 *
 * A binding's set is applied by difference: keys that left are removed, new
 * ones added, and a definition that changed replaces the old one in its
 * place. A definition equal to the one held (the same object, or the same
 * values property by property) is left alone, and a replacement announces
 * a change only when what clients see of it differs (its listing and who
 * may see it), so a source that re-emits on every state change does not
 * send list_changed for handlers that merely closed over newer state.
 */
import { canonicalJson } from './canonical-json.js';
import { ConfigError } from './errors.js';

/** Who holds a binding's entries: one token per `bind*` call. */
export interface Binding {
  /** The method that made it (`bindTools`), for error messages. */
  readonly method: string;
}

export interface TableSpec<D, E> {
  /** 'tool', 'resource', 'prompt': for error messages. */
  readonly kind: string;
  /** The key's field ('name', 'uri'): the ConfigError's option. */
  readonly field: string;
  /** The call that registers one ('registerTool'): for error messages. */
  readonly register: string;
  /** The definition's key, checked (a TypeError when it has none). */
  keyOf(def: D): string;
  /** What clients see of an entry (its listing, and who may see it); compared as canonical JSON. */
  visible(entry: E): unknown;
  /** A taken key a call may replace without `replace: true` (tools: derived over derived). */
  mayReplaceSilently?(taken: E, next: E): boolean;
  /** The entry is now in the table; `previous` is what it replaced. */
  placed?(entry: E, previous: E | undefined): void;
  /** The entry left the table, for `successor` or for good. */
  left?(entry: E, successor: E | undefined): void;
}

interface Held<D, E> {
  readonly entry: E;
  /** What the holder gave (a resource's served definition may differ from it). */
  readonly given: D;
  /** `null`: a call registered it. */
  readonly holder: Binding | null;
}

/** Same object, or the same own enumerable properties holding the same values (===). */
function sameDefinition(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key]);
}

export class KeyedTable<D, E> {
  private readonly held = new Map<string, Held<D, E>>();

  constructor(
    private readonly spec: TableSpec<D, E>,
    /** Called once per change of the table, however many keys it touched. */
    private readonly announce: () => void,
  ) {}

  get(key: string): E | undefined {
    return this.held.get(key)?.entry;
  }

  has(key: string): boolean {
    return this.held.has(key);
  }

  /** The entries in registration order (a replacement keeps its place). */
  entries(): E[] {
    return [...this.held.values()].map((held) => held.entry);
  }

  /** A call's registration of a prepared entry. */
  register(key: string, entry: E, given: D, replace: boolean): void {
    this.registerAll([{ key, entry, given }], replace);
  }

  /** A call's registration of several: all or none, one announcement. */
  registerAll(items: ReadonlyArray<{ key: string; entry: E; given: D }>, replace: boolean): void {
    const keys = new Set<string>();
    for (const { key, entry } of items) {
      if (keys.has(key)) this.refuseTakenByCall(key);
      keys.add(key);
      const taken = this.held.get(key);
      if (taken === undefined) continue;
      if (taken.holder !== null) this.refuseBound(key, taken.holder);
      if (!replace && this.spec.mayReplaceSilently?.(taken.entry, entry) !== true) this.refuseTakenByCall(key);
    }
    for (const { key, entry, given } of items) this.place(key, entry, given, null);
    if (items.length > 0) this.announce();
  }

  /** A call's removal; a key a binding holds is refused. */
  unregister(key: string): boolean {
    const taken = this.held.get(key);
    if (taken === undefined) return false;
    if (taken.holder !== null) this.refuseBound(key, taken.holder);
    this.remove(key, taken);
    this.announce();
    return true;
  }

  /**
   * A binding's new set, applied by difference, all or none: every
   * definition is checked and prepared (`prepare` throws on a bad one) and
   * every key's holder checked before the first change.
   */
  bind(binding: Binding, defs: Iterable<D>, prepare: (def: D) => E): void {
    const next = new Map<string, D>();
    for (const def of defs) {
      const key = this.spec.keyOf(def);
      if (next.has(key)) {
        throw new ConfigError(this.spec.field, `${binding.method}: ${this.spec.kind} ${JSON.stringify(key)} appears twice in one set`);
      }
      next.set(key, def);
    }
    const puts: Array<{ key: string; entry: E; given: D }> = [];
    for (const [key, def] of next) {
      const taken = this.held.get(key);
      if (taken !== undefined && taken.holder !== binding) this.refuseTakenByBinding(key, taken.holder, binding);
      if (taken !== undefined && sameDefinition(taken.given, def)) continue;
      puts.push({ key, entry: prepare(def), given: def });
    }
    let changed = false;
    for (const [key, taken] of [...this.held]) {
      if (taken.holder !== binding || next.has(key)) continue;
      this.remove(key, taken);
      changed = true;
    }
    for (const { key, entry, given } of puts) {
      const previous = this.held.get(key)?.entry;
      if (previous === undefined || !this.sameVisible(previous, entry)) changed = true;
      this.place(key, entry, given, binding);
    }
    if (changed) this.announce();
  }

  /** Removes every key `binding` holds (its unsubscription); one announcement if any. */
  release(binding: Binding): void {
    let changed = false;
    for (const [key, taken] of [...this.held]) {
      if (taken.holder !== binding) continue;
      this.remove(key, taken);
      changed = true;
    }
    if (changed) this.announce();
  }

  private place(key: string, entry: E, given: D, holder: Binding | null): void {
    const previous = this.held.get(key)?.entry;
    this.held.set(key, { entry, given, holder });
    this.spec.placed?.(entry, previous);
    if (previous !== undefined) this.spec.left?.(previous, entry);
  }

  private remove(key: string, taken: Held<D, E>): void {
    this.held.delete(key);
    this.spec.left?.(taken.entry, undefined);
  }

  private sameVisible(a: E, b: E): boolean {
    const left = canonicalJson(this.spec.visible(a));
    return left !== null && left === canonicalJson(this.spec.visible(b));
  }

  private refuseTakenByCall(key: string): never {
    throw new ConfigError(
      this.spec.field,
      `${this.spec.kind} ${JSON.stringify(key)} is already registered; unregister it first, or pass { replace: true } to replace it`,
    );
  }

  private refuseBound(key: string, holder: Binding): never {
    throw new ConfigError(
      this.spec.field,
      `${this.spec.kind} ${JSON.stringify(key)} is bound by ${holder.method}(): only that binding's next set changes it; ` +
        `leave it out of that set, or unsubscribe the binding, before registering or unregistering it by a call`,
    );
  }

  private refuseTakenByBinding(key: string, holder: Binding | null, binding: Binding): never {
    const by = holder === null ? `registered by ${this.spec.register}()` : `bound by another ${holder.method}() binding`;
    throw new ConfigError(
      this.spec.field,
      `${binding.method}: ${this.spec.kind} ${JSON.stringify(key)} is already ${by}; a key belongs to one holder: ` +
        `leave it out of this set, or ${holder === null ? 'unregister it' : 'unsubscribe that binding'} first`,
    );
  }
}
