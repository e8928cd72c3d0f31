/**
 * The sections of a `Patch` (`metadata` with `labels` and `annotations`, `spec`, `status`): plain
 * objects behind accessor properties, so that assigning an object or `null` replaces a section
 * while writes into it go to a plain object, and read back into a merge patch.
 *
 * A patch is made for every processing cycle, and most (the echoes of the operator's own patches)
 * are only asked whether they are empty; each accessor is a property definition, V8's slow path.
 * So a section's nested sections are defined on its object when that object is first handed out
 * (`metadata`'s `labels` and `annotations`), not when the patch is made.
 */
import { deepCopy, isObject, type JsonValue } from "../Json.ts";
import { getOwn, setOwn } from "./ownKeys.ts";

/** A mutable section of a patch: JSON values by key (`null` deletes the field). */
export interface PatchObject {
  [key: string]: JsonValue | PatchObject | undefined;
}

/**
 * One section: the plain object written into, whether it was set to `null`, and whether a whole
 * object was assigned (then it is kept even when empty). `children` are the nested sections,
 * `undefined` until they are defined on `current` (when it is first handed out); `nested` names
 * them.
 */
export interface Slot {
  current: PatchObject;
  nulled: boolean;
  explicit: boolean;
  readonly nested: ReadonlyArray<string>;
  children: ReadonlyArray<readonly [string, Slot]> | undefined;
}

/** Where a holder (a patch, a section's object) keeps what its accessors need. */
export const STATE: unique symbol = Symbol.for("@kopf/structs/Patch.state");

/** What a holder keeps: its sections by key (a patch keeps more, see `Patch`). */
export interface HolderState {
  readonly sections: Record<string, Slot>;
}

interface Holder {
  [STATE]: HolderState;
}

const NO_CHILDREN: ReadonlyArray<readonly [string, Slot]> = [];

/** A new, empty section with nested sections of these names (defined when first handed out). */
export const newSlot = (nested: ReadonlyArray<string> = []): Slot => ({
  current: {},
  nulled: false,
  explicit: false,
  nested,
  children: nested.length === 0 ? NO_CHILDREN : undefined,
});

/** Defines the nested sections on the section's object, if not done yet. */
const install = (slot: Slot): void => {
  if (slot.children !== undefined) return;
  const children: Array<readonly [string, Slot]> = [];
  const sections: Record<string, Slot> = {};
  for (const name of slot.nested) {
    const child = newSlot();
    children.push([name, child]);
    sections[name] = child;
  }
  slot.children = children;
  const state: HolderState = { sections };
  Object.defineProperty(slot.current, STATE, { value: state });
  for (const name of slot.nested) Object.defineProperty(slot.current, name, accessorOf(name, true));
};

/** Empties a section in place (so references to its object stay valid). */
export const empty = (holder: object, key: string, slot: Slot): void => {
  if (Object.getOwnPropertyDescriptor(holder, key)?.get === undefined) defineSlot(holder, key, slot, true);
  const children = slot.children ?? NO_CHILDREN;
  for (const name of Object.keys(slot.current))
    if (!children.some(([child]) => child === name)) delete slot.current[name];
  for (const [name, child] of children) empty(slot.current, name, child);
  slot.nulled = false;
  slot.explicit = false;
};

/** A fresh object for the section; its nested sections are made afresh when it is handed out. */
const reset = (slot: Slot): void => {
  slot.current = {};
  slot.nulled = false;
  slot.explicit = false;
  slot.children = slot.nested.length === 0 ? NO_CHILDREN : undefined;
};

const assign = (slot: Slot, value: unknown): void => {
  reset(slot);
  if (value === null) {
    slot.nulled = true;
    return;
  }
  if (!isObject(value)) return;
  slot.explicit = true;
  // A nested section's key assigned goes through its accessor: defined first.
  install(slot);
  for (const key of Object.keys(value)) {
    const item = getOwn(value, key);
    if (item !== undefined) (slot.current as Record<string, unknown>)[key] = deepCopy(item);
  }
};

/**
 * The section whose accessor was read last: {@link sectionIn} reads a property to learn whether it
 * is still a section's accessor (asking for its descriptor would allocate one per question).
 */
let lastRead: Slot | undefined;
/** Set while {@link sectionIn} reads: the object is not handed out, its nested sections wait. */
let peeking = false;

/** The section whose accessor ran since the last call, if any. */
const takeRead = (): Slot | undefined => {
  const read = lastRead;
  lastRead = undefined;
  return read;
};

// One accessor pair per key name, shared by every holder: V8 then gives all patches the same
// hidden classes (fresh functions per property would give each patch its own, slow to make).
const accessors: readonly [Map<string, PropertyDescriptor>, Map<string, PropertyDescriptor>] = [
  new Map(),
  new Map(),
];
const accessorOf = (key: string, enumerable: boolean): PropertyDescriptor => {
  const byKey = accessors[enumerable ? 1 : 0];
  let accessor = byKey.get(key);
  if (accessor === undefined) {
    accessor = {
      get(this: Holder) {
        const slot = this[STATE].sections[key] as Slot;
        lastRead = slot;
        if (!peeking) install(slot);
        return slot.current;
      },
      set(this: Holder, value: unknown) {
        assign(this[STATE].sections[key] as Slot, value);
      },
      enumerable,
      configurable: true,
    };
    byKey.set(key, accessor);
  }
  return accessor;
};

/**
 * Defines `key` on `holder` (which keeps its {@link HolderState} under {@link STATE}) as the
 * section `slot`: reads give its object, writes replace it. Deleting the property (as the
 * storages do with a field emptied by a removal) drops the section.
 */
export const defineSlot = (holder: object, key: string, slot: Slot, enumerable: boolean): void => {
  (holder as Holder)[STATE].sections[key] = slot;
  Object.defineProperty(holder, key, accessorOf(key, enumerable));
};

/** What a section contributes to the merge patch: `undefined` for an untouched, empty one. */
export const readSlot = (slot: Slot): JsonValue | undefined => {
  const out: Record<string, JsonValue> = {};
  const children = slot.children ?? NO_CHILDREN;
  for (const key of Object.keys(slot.current)) {
    const child = children.length === 0 ? undefined : sectionIn(slot.current, key, children);
    const value = child === undefined ? readValue(getOwn(slot.current, key)) : readSlot(child);
    if (value !== undefined) setOwn(out, key, value);
  }
  if (Object.keys(out).length > 0) return out;
  if (slot.nulled) return null;
  return slot.explicit ? {} : undefined;
};

/**
 * Whether a section contributes to the merge patch ({@link readSlot} is not `undefined`), found
 * without copying anything.
 */
export const slotHasContent = (slot: Slot): boolean => {
  if (slot.nulled || slot.explicit) return true;
  const children = slot.children ?? NO_CHILDREN;
  for (const key of Object.keys(slot.current)) {
    const child = children.length === 0 ? undefined : sectionIn(slot.current, key, children);
    if (child === undefined ? getOwn(slot.current, key) !== undefined : slotHasContent(child)) return true;
  }
  return false;
};

/**
 * The section behind `holder[key]`, if that property is still the section's accessor (once
 * deleted and written again, e.g. by the storages' removal of emptied parents, it is plain data).
 * Reading the property tells: only the accessor marks its section as read, and this read hands
 * nothing out. A section list has a handful of entries: it is searched, no map is built.
 */
export const sectionIn = (
  holder: object,
  key: string,
  slots: ReadonlyArray<readonly [string, Slot]>,
): Slot | undefined => {
  for (const [name, slot] of slots) {
    if (name !== key) continue;
    takeRead();
    peeking = true;
    let value: unknown;
    try {
      value = (holder as Record<string, unknown>)[key];
    } finally {
      // Whatever the read did: a flag left raised would keep every later section's nested ones.
      peeking = false;
    }
    return takeRead() === slot && value === slot.current ? slot : undefined;
  }
  return undefined;
};

export const readValue = (value: unknown): JsonValue | undefined =>
  value === undefined ? undefined : (deepCopy(value) as JsonValue);
