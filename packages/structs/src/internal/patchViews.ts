/**
 * The auto-vivifying views of a `Patch` (`patch.spec`, `patch.status`, `patch.metadata` with its
 * `labels` and `annotations`): proxies that read through to the patch's merge-patch dict and
 * create the missing parent objects only when something is written into them.
 */
import { deepCopy, isObject } from "../Json.ts";
import { getOwn, hasOwn, setOwn } from "./ownKeys.ts";

/** A mutable object of a patch; any key may be read or written. */
export interface PatchObject {
  [key: string]: any;
}

/** The mutable dict behind a patch. */
export type PatchDict = Record<string, unknown>;

/** Values written into a patch are copied, so the patch never aliases a body or caller data. */
export const ownValue = (value: unknown): unknown =>
  isObject(value) || Array.isArray(value) ? deepCopy(value) : value;

const nodeAt = (
  dict: PatchDict,
  path: ReadonlyArray<string>,
): { readonly [key: string]: unknown } | undefined => {
  let current: unknown = dict;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = getOwn(current, key);
  }
  return isObject(current) ? current : undefined;
};

const ensureNode = (dict: PatchDict, path: ReadonlyArray<string>): object => {
  let current: object = dict;
  for (const key of path) {
    const child = getOwn(current, key);
    if (isObject(child)) {
      current = child;
    } else {
      const created = {};
      setOwn(current, key, created);
      current = created;
    }
  }
  return current;
};

/**
 * A view on the object at `path` inside the dict returned by `dict()` (looked up on every
 * access, so `clear()` and replacements of parents are seen at once). `children` names keys
 * that are views themselves (e.g. `labels` under `metadata`).
 */
export const makeView = (
  dict: () => PatchDict,
  path: ReadonlyArray<string>,
  children: Readonly<Record<string, PatchObject>> = {},
): PatchObject =>
  new Proxy<PatchObject>(
    {},
    {
      get: (_, key) => {
        if (typeof key === "symbol") return undefined;
        if (Object.hasOwn(children, key)) return children[key];
        const node = nodeAt(dict(), path);
        return node === undefined ? undefined : getOwn(node, key);
      },
      set: (_, key, value) => {
        if (typeof key === "symbol") return false;
        setOwn(ensureNode(dict(), path), key, ownValue(value));
        return true;
      },
      defineProperty: (_, key, descriptor) => {
        if (typeof key === "symbol" || !("value" in descriptor)) return false;
        setOwn(ensureNode(dict(), path), key, ownValue(descriptor.value));
        return true;
      },
      deleteProperty: (_, key) => {
        const node = nodeAt(dict(), path);
        if (typeof key === "string" && node !== undefined) delete (node as PatchDict)[key];
        return true;
      },
      has: (_, key) => {
        const node = nodeAt(dict(), path);
        return typeof key === "string" && node !== undefined && hasOwn(node, key);
      },
      ownKeys: () => {
        const node = nodeAt(dict(), path);
        return node === undefined ? [] : Object.keys(node);
      },
      getOwnPropertyDescriptor: (_, key) => {
        const node = nodeAt(dict(), path);
        if (typeof key !== "string" || node === undefined || !hasOwn(node, key)) return undefined;
        return { value: getOwn(node, key), writable: true, enumerable: true, configurable: true };
      },
    },
  );
