/**
 * The sections of a `Patch` (`metadata` with `labels` and `annotations`, `spec`, `status`): plain
 * objects behind accessor properties, so that assigning an object or `null` replaces a section
 * while writes into it go to a plain object, and read back into a merge patch.
 */
import { deepCopy, isObject, type JsonValue } from "../Json.ts";
import { getOwn, setOwn } from "./ownKeys.ts";

/** A mutable section of a patch: JSON values by key (`null` deletes the field). */
export interface PatchObject {
  [key: string]: JsonValue | PatchObject | undefined;
}

/**
 * One section: the plain object written into, whether it was set to `null`, and whether a whole
 * object was assigned (then it is kept even when empty). `children` are nested sections.
 */
export interface Slot {
  current: PatchObject;
  nulled: boolean;
  explicit: boolean;
  readonly children: ReadonlyArray<readonly [string, Slot]>;
}

const installChildren = (slot: Slot): void => {
  for (const [key, child] of slot.children) defineSlot(slot.current, key, child, true);
};

/** Empties a section in place (so references to its object stay valid). */
export const empty = (holder: object, key: string, slot: Slot): void => {
  if (Object.getOwnPropertyDescriptor(holder, key)?.get === undefined) defineSlot(holder, key, slot, true);
  const children = new Map(slot.children);
  for (const name of Object.keys(slot.current)) if (!children.has(name)) delete slot.current[name];
  for (const [name, child] of slot.children) empty(slot.current, name, child);
  slot.nulled = false;
  slot.explicit = false;
};

const reset = (slot: Slot): void => {
  slot.current = {};
  slot.nulled = false;
  slot.explicit = false;
  for (const [, child] of slot.children) reset(child);
  installChildren(slot);
};

const assign = (slot: Slot, value: unknown): void => {
  reset(slot);
  if (value === null) {
    slot.nulled = true;
    return;
  }
  if (!isObject(value)) return;
  slot.explicit = true;
  for (const key of Object.keys(value)) {
    const item = getOwn(value, key);
    if (item !== undefined) (slot.current as Record<string, unknown>)[key] = deepCopy(item);
  }
};

/** Where a holder keeps its sections by key, for the shared accessors to find them. */
const SLOTS: unique symbol = Symbol("@kopf/structs/Patch.slots");
interface Holder {
  [SLOTS]?: Record<string, Slot>;
}

const slotOf = (holder: Holder, key: string): Slot => (holder[SLOTS] as Record<string, Slot>)[key] as Slot;

/**
 * The section whose accessor was read last: {@link sectionIn} reads a property to learn whether it
 * is still a section's accessor (asking for its descriptor would allocate one per question).
 */
let lastRead: Slot | undefined;

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
        const slot = slotOf(this, key);
        lastRead = slot;
        return slot.current;
      },
      set(this: Holder, value: unknown) {
        assign(slotOf(this, key), value);
      },
      enumerable,
      configurable: true,
    };
    byKey.set(key, accessor);
  }
  return accessor;
};

/**
 * Defines `key` on `holder` as the section `slot`: reads give its object, writes replace it.
 * Deleting the property (as the storages do with a field emptied by a removal) drops the section.
 */
export const defineSlot = (holder: object, key: string, slot: Slot, enumerable: boolean): void => {
  const own = holder as Holder;
  let slots = own[SLOTS];
  if (slots === undefined) {
    slots = {};
    Object.defineProperty(holder, SLOTS, { value: slots });
  }
  slots[key] = slot;
  Object.defineProperty(holder, key, accessorOf(key, enumerable));
};

export const newSlot = (children: ReadonlyArray<readonly [string, Slot]> = []): Slot => {
  const slot: Slot = { current: {}, nulled: false, explicit: false, children };
  installChildren(slot);
  return slot;
};

/** What a section contributes to the merge patch: `undefined` for an untouched, empty one. */
export const readSlot = (slot: Slot): JsonValue | undefined => {
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(slot.current)) {
    const child = slot.children.length === 0 ? undefined : sectionIn(slot.current, key, slot.children);
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
  for (const key of Object.keys(slot.current)) {
    const child = slot.children.length === 0 ? undefined : sectionIn(slot.current, key, slot.children);
    if (child === undefined ? getOwn(slot.current, key) !== undefined : slotHasContent(child)) return true;
  }
  return false;
};

/**
 * The section behind `holder[key]`, if that property is still the section's accessor (once
 * deleted and written again, e.g. by the storages' removal of emptied parents, it is plain data).
 * Reading the property tells: only the accessor marks its section as read. A section list has a
 * handful of entries: it is searched, no map is built.
 */
export const sectionIn = (
  holder: object,
  key: string,
  slots: ReadonlyArray<readonly [string, Slot]>,
): Slot | undefined => {
  for (const [name, slot] of slots) {
    if (name !== key) continue;
    takeRead();
    const value = (holder as Record<string, unknown>)[key];
    return takeRead() === slot && value === slot.current ? slot : undefined;
  }
  return undefined;
};

export const readValue = (value: unknown): JsonValue | undefined =>
  value === undefined ? undefined : (deepCopy(value) as JsonValue);
