/**
 * The object store: one table per resource type with objects indexed by namespace and name, a
 * global increasing resourceVersion, a uid index, a bounded event history per table for watch
 * resumption and paged lists, and the open watchers. It is synchronous and mutable on purpose:
 * every mutation runs inside a single `Effect.sync`, so each write is atomic and costs O(1) besides
 * its watchers.
 *
 * The history is kept as kube-apiserver's watch cache keeps it: at least the last
 * {@link HistoryOptions.size} events, and beyond that every event younger than
 * {@link HistoryOptions.windowMillis} (75 s there), up to {@link HistoryOptions.cap} events. A burst
 * of writes therefore does not expire the continue token of a list being paged, nor the version a
 * watch resumes from, sooner than a real server would. It is trimmed when it has grown by half
 * since the last trim, so a write costs O(1) amortised.
 */
import { canonical } from "./Canonical.ts";
import { asObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import { keyOf, type ResourceType } from "./ResourceType.ts";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoredEvent {
  readonly type: EventType;
  readonly rv: number;
  readonly object: JsonObject;
  readonly previous: JsonObject | undefined;
  /** When it happened (the emulator's Clock, milliseconds): how long the history keeps it. */
  readonly at: number;
}

/** How much event history each table keeps. */
export interface HistoryOptions {
  /** The events always kept (the newest). */
  readonly size: number;
  /** Older events are kept while younger than this, milliseconds. */
  readonly windowMillis: number;
  /** The most events kept, however young. */
  readonly cap: number;
  /** Now, milliseconds (the emulator's Clock). */
  readonly now: () => number;
}

/**
 * The history's length at which to trim it next, given its length after a trim: when it has
 * grown by half, and at least by `size` (so trimming costs O(1) per write, amortised).
 */
const trimAfter = (length: number, size: number): number => length + Math.max(size, length >> 1);

/** An open watch on one table; `deliver` gets every event and decides what its client sees. */
export interface Watcher {
  readonly deliver: (event: StoredEvent) => void;
  /** Ends the watch stream (the client sees a disconnect). */
  readonly end: () => void;
}

export interface Location {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
}

/** Objects of one resource type. */
export class Table {
  type: ResourceType;
  readonly byNamespace = new Map<string, Map<string, JsonObject>>();
  readonly watchers = new Set<Watcher>();
  history: Array<StoredEvent> = [];
  /** Events with rv > compactedRv are in `history`; older ones are forgotten. */
  compactedRv: number;
  /** The history's length at which it is trimmed next (see `Store.trim`). */
  trimAt: number;
  size = 0;

  constructor(type: ResourceType, compactedRv: number, trimAt: number) {
    this.type = type;
    this.compactedRv = compactedRv;
    this.trimAt = trimAt;
  }

  get(namespace: string, name: string): JsonObject | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** Objects in `namespace` (or all), sorted by their storage key (namespace, then name). */
  list(namespace: string | undefined): Array<JsonObject> {
    const out: Array<JsonObject> = [];
    if (namespace !== undefined) {
      const names = this.byNamespace.get(namespace);
      if (names !== undefined)
        for (const name of [...names.keys()].sort()) out.push(names.get(name) as JsonObject);
      return out;
    }
    for (const ns of [...this.byNamespace.keys()].sort()) {
      const names = this.byNamespace.get(ns) as Map<string, JsonObject>;
      for (const name of [...names.keys()].sort()) out.push(names.get(name) as JsonObject);
    }
    return out;
  }

  /**
   * The position in `history` of its first event after `rv`: a binary search, since the history
   * is in resourceVersion order (a watch resuming from a version skips what it has seen without
   * reading the up to {@link HistoryOptions.cap} events before it).
   */
  firstAfter(rv: number): number {
    let low = 0;
    let high = this.history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.history[middle] as StoredEvent).rv <= rv) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  countIn(namespace: string): number {
    return this.byNamespace.get(namespace)?.size ?? 0;
  }
}

export const nameOf = (obj: JsonObject): string => str(metaOf(obj).name) ?? "";
export const namespaceOf = (obj: JsonObject): string => str(metaOf(obj).namespace) ?? "";
export const uidOf = (obj: JsonObject): string => str(metaOf(obj).uid) ?? "";
export const rvOf = (obj: JsonObject): string => str(metaOf(obj).resourceVersion) ?? "";

/** The whole cluster state. */
export class Store {
  /** The last resourceVersion issued. */
  rv: number;
  readonly history: HistoryOptions;
  readonly tables = new Map<string, Table>();
  /** The same tables by group, then plural: found on every request without making a key string. */
  private readonly byGroup = new Map<string, Map<string, Table>>();
  /** Types served from another type's table (see ResourceType.storedAs), by `group/plural`. */
  readonly views = new Map<string, ResourceType>();
  readonly byUid = new Map<string, Location>();
  /** Called after every committed change (e.g. to wake the garbage collector). */
  onChange: (event: StoredEvent, table: Table) => void = () => {};

  constructor(history: HistoryOptions, startRv = 1) {
    const size = Math.max(1, history.size);
    this.history = { ...history, size, cap: Math.max(size, history.cap) };
    this.rv = startRv;
  }

  addTable(type: ResourceType): Table {
    const table = new Table(type, this.rv, trimAfter(0, this.history.size));
    this.tables.set(keyOf(type), table);
    let plurals = this.byGroup.get(type.group);
    if (plurals === undefined) {
      plurals = new Map();
      this.byGroup.set(type.group, plurals);
    }
    plurals.set(type.plural, table);
    return table;
  }

  /** Removes a table, ending its watches. */
  removeTable(key: string): void {
    const table = this.tables.get(key);
    if (table === undefined) return;
    for (const w of table.watchers) w.end();
    for (const names of table.byNamespace.values())
      for (const obj of names.values()) this.byUid.delete(uidOf(obj));
    this.tables.delete(key);
    const plurals = this.byGroup.get(table.type.group);
    if (plurals?.get(table.type.plural) === table) plurals.delete(table.type.plural);
  }

  table(group: string, plural: string): Table | undefined {
    return this.byGroup.get(group)?.get(plural);
  }

  lookupUid(uid: string): JsonObject | undefined {
    const loc = this.byUid.get(uid);
    return loc === undefined ? undefined : this.tables.get(loc.key)?.get(loc.namespace, loc.name);
  }

  /** The object {@link stage} made last (what `put` of it stores as it is). */
  private staged: JsonObject | undefined;

  /**
   * The object as {@link put} would store it now — keys in the apiserver's order, the next
   * resourceVersion — to check before storing it (a `put` of it right after stores it as it is).
   */
  stage(table: Table, obj: JsonObject, previous: JsonObject | undefined): JsonObject {
    this.staged = canonical(
      table.type.custom,
      { ...obj, metadata: { ...metaOf(obj), resourceVersion: String(this.rv + 1) } },
      previous,
    );
    return this.staged;
  }

  /** Stores a new or changed object with the next resourceVersion; returns the stored object. */
  put(table: Table, obj: JsonObject, previous: JsonObject | undefined): JsonObject {
    const stored =
      obj === this.staged && rvOf(obj) === String(this.rv + 1) ? obj : this.stage(table, obj, previous);
    this.staged = undefined;
    const rv = ++this.rv;
    const ns = namespaceOf(stored);
    const name = nameOf(stored);
    let names = table.byNamespace.get(ns);
    if (names === undefined) {
      names = new Map();
      table.byNamespace.set(ns, names);
    }
    if (!names.has(name)) table.size++;
    names.set(name, stored);
    this.byUid.set(uidOf(stored), { key: keyOf(table.type), namespace: ns, name });
    this.record(table, previous === undefined ? "ADDED" : "MODIFIED", rv, stored, previous);
    return stored;
  }

  /** Removes an object; the DELETED event carries its last state with the deletion's resourceVersion. */
  remove(table: Table, obj: JsonObject): JsonObject {
    const rv = ++this.rv;
    const ns = namespaceOf(obj);
    const names = table.byNamespace.get(ns);
    if (names?.delete(nameOf(obj)) === true) table.size--;
    if (names !== undefined && names.size === 0) table.byNamespace.delete(ns);
    this.byUid.delete(uidOf(obj));
    const last = { ...obj, metadata: { ...metaOf(obj), resourceVersion: String(rv) } };
    this.record(table, "DELETED", rv, last, obj);
    return last;
  }

  private record(
    table: Table,
    type: EventType,
    rv: number,
    object: JsonObject,
    previous: JsonObject | undefined,
  ): void {
    const event: StoredEvent = { type, rv, object, previous, at: this.history.now() };
    table.history.push(event);
    if (table.history.length >= table.trimAt) this.trim(table, event.at);
    for (const w of table.watchers) w.deliver(event);
    this.onChange(event, table);
  }

  /**
   * Forgets the events beyond the newest `size` that are older than the window, or beyond the
   * cap; the next trim comes when the history has grown by half again ({@link trimAfter}).
   */
  private trim(table: Table, now: number): void {
    const { size, windowMillis, cap } = this.history;
    const history = table.history;
    const oldest = now - windowMillis;
    let drop = 0;
    while (history.length - drop > size) {
      const event = history[drop] as StoredEvent;
      if (history.length - drop <= cap && event.at > oldest) break;
      drop++;
    }
    if (drop > 0) {
      table.compactedRv = (history[drop - 1] as StoredEvent).rv;
      table.history = history.slice(drop);
    }
    table.trimAt = trimAfter(table.history.length, size);
  }

  /** Forgets every table's history: watches from an older resourceVersion get 410 Gone. */
  compact(): void {
    for (const table of this.tables.values()) {
      table.history = [];
      table.compactedRv = this.rv;
      table.trimAt = trimAfter(0, this.history.size);
    }
  }

  /** Every stored object, tables in key order. */
  allObjects(): Array<JsonObject> {
    const out: Array<JsonObject> = [];
    for (const key of [...this.tables.keys()].sort())
      out.push(...(this.tables.get(key) as Table).list(undefined));
    return out;
  }
}

/** Labels of an object (never undefined). */
export const labelsOf = (obj: JsonObject): Record<string, string> =>
  asObject(metaOf(obj).labels) as Record<string, string>;
