/**
 * The `Patch` accumulator handlers write into (Kopf's `Patch`, §1.7, §5.9): a JSON merge-patch
 * dict (`null` deletes a field) plus `fns`, functions that transform the body in place. The
 * reactor applies it once per cycle, as a merge patch or as the JSON patch built by
 * `asJsonPatch`.
 */
import { Result } from "effect";
import type { RawBody } from "./Body.ts";
import { getOwn, hasOwn, setOwn } from "./internal/ownKeys.ts";
import { makeView, ownValue, type PatchDict, type PatchObject } from "./internal/patchViews.ts";
import { deepCopy, type JsonObject, MAPPING } from "./Json.ts";
import type * as JsonPatch from "./JsonPatch.ts";
import type { PatchError, PatchFn } from "./PatchValue.ts";
import * as PatchValue from "./PatchValue.ts";

export type { PatchObject } from "./internal/patchViews.ts";
export type { PatchErrorReason, PatchFn } from "./PatchValue.ts";
export { applyMergePatch, PatchError } from "./PatchValue.ts";

/** The `metadata` view of a patch, with its own `labels` and `annotations` views. */
export interface MetaPatch extends PatchObject {
  get labels(): PatchObject;
  set labels(value: Readonly<Record<string, string | null>> | null);
  get annotations(): PatchObject;
  set annotations(value: Readonly<Record<string, string | null>> | null);
}

const STATE: unique symbol = Symbol.for("@kopf/structs/Patch.state");

interface State {
  dict: PatchDict;
  readonly fns: Array<PatchFn>;
  readonly original: RawBody | undefined;
  readonly meta: MetaPatch;
  readonly spec: PatchObject;
  readonly status: PatchObject;
}

/** Top-level keys that are views: writing them replaces the whole field of the dict. */
const VIEW_FIELDS: Readonly<Record<string, string>> = {
  metadata: "metadata",
  meta: "metadata",
  spec: "spec",
  status: "status",
};

/**
 * A mutable patch. Write into it as into a plain object; `spec`, `status`, `metadata`/`meta`
 * and `meta.labels`/`meta.annotations` are views that create their parents only when written
 * (merely reading `patch.status` leaves the patch empty). Values written are copied. Every
 * other top-level key (`patch["data"]`) is a plain field of the merge patch.
 *
 * @example
 * const patch = new Patch(body)
 * patch.status.phase = "Ready"
 * patch.meta.annotations["example.com/note"] = null // deletes the annotation
 * patch.fns.push((b) => { b.metadata.finalizers.push("example.com/fin") })
 * patch.toMergePatch() // { status: { phase: "Ready" }, metadata: { annotations: { "example.com/note": null } } }
 */
export class Patch {
  /** Any other top-level field of the merge patch. */
  [key: string]: any;
  declare readonly [STATE]: State;

  constructor(
    body?: RawBody | null,
    init?: { readonly mergePatch?: JsonObject; readonly fns?: Iterable<PatchFn> },
  ) {
    const dict = () => state.dict;
    const labels = makeView(dict, ["metadata", "labels"]);
    const annotations = makeView(dict, ["metadata", "annotations"]);
    const state: State = {
      dict: init?.mergePatch === undefined ? {} : (deepCopy(init.mergePatch) as PatchDict),
      fns: [...(init?.fns ?? [])],
      original: body ?? undefined,
      meta: makeView(dict, ["metadata"], { labels, annotations }) as MetaPatch,
      spec: makeView(dict, ["spec"]),
      status: makeView(dict, ["status"]),
    };
    Object.defineProperty(this, STATE, { value: state, configurable: true });
    // biome-ignore lint/correctness/noConstructorReturn: the proxy is what makes `patch[key] = v` work.
    return new Proxy(this, handler);
  }

  /** A patch is a JSON mapping for `Json`, `Diff` and `FieldPath` (its keys are the merge patch). */
  get [MAPPING](): true {
    return true;
  }

  /** The functions applied to the body after the merge patch, in order (mutable). */
  get fns(): Array<PatchFn> {
    return this[STATE].fns;
  }

  /** The body this patch was made for: the default reference of `asJsonPatch`. */
  get original(): RawBody | undefined {
    return this[STATE].original;
  }

  get metadata(): MetaPatch {
    return this[STATE].meta;
  }
  set metadata(value: JsonObject | null) {
    setOwn(this[STATE].dict, "metadata", ownValue(value));
  }

  /** An alias of `metadata`. */
  get meta(): MetaPatch {
    return this[STATE].meta;
  }
  set meta(value: JsonObject | null) {
    setOwn(this[STATE].dict, "metadata", ownValue(value));
  }

  get spec(): PatchObject {
    return this[STATE].spec;
  }
  set spec(value: JsonObject | null) {
    setOwn(this[STATE].dict, "spec", ownValue(value));
  }

  get status(): PatchObject {
    return this[STATE].status;
  }
  set status(value: JsonObject | null) {
    setOwn(this[STATE].dict, "status", ownValue(value));
  }

  /** Whether there is nothing to apply: no merge-patch field and no function. */
  isEmpty(): boolean {
    return Object.keys(this[STATE].dict).length === 0 && this[STATE].fns.length === 0;
  }

  /** Forgets every field and function. */
  clear(): void {
    this[STATE].dict = {};
    this[STATE].fns.length = 0;
  }

  /** A deep copy of the merge-patch dict (without the functions). */
  toMergePatch(): JsonObject {
    return deepCopy(this[STATE].dict) as JsonObject;
  }

  /** `JSON.stringify(patch)` renders the merge patch. */
  toJSON(): JsonObject {
    return this.toMergePatch();
  }

  /**
   * The patch as an immutable value (a copy of the merge patch and of the list of functions).
   *
   * @example
   * PatchValue.statusPart(patch.toValue()) // { status: { ... } } or undefined
   */
  toValue(): PatchValue.PatchValue {
    return PatchValue.make(this[STATE].dict as JsonObject, this[STATE].fns);
  }

  /** An independent patch with the same fields, functions and original body. */
  copy(): Patch {
    return new Patch(this[STATE].original, { mergePatch: this.toMergePatch(), fns: this[STATE].fns });
  }

  /**
   * The JSON-patch operations that this patch amounts to against `body` (or the original body):
   * the merge patch and then the functions are applied to a copy, and the copy is diffed with
   * the reference (§5.9). Neither body is mutated. An empty patch gives `[]`, even without a
   * reference.
   *
   * @example
   * const patch = new Patch({ metadata: { finalizers: ["a"] } })
   * patch.fns.push((b) => b.metadata!.finalizers.push("b"))
   * patch.asJsonPatch() // Result.succeed([{ op: "add", path: "/metadata/finalizers/1", value: "b" }])
   */
  asJsonPatch(body?: RawBody | null): Result.Result<JsonPatch.JsonPatch, PatchError> {
    if (this.isEmpty()) return Result.succeed([]);
    const reference = body ?? this[STATE].original;
    if (reference === undefined) {
      return Result.fail(
        new PatchValue.PatchError({
          reason: "NoReference",
          message: "Cannot build a JSON-patch without the original body as a reference.",
        }),
      );
    }
    return PatchValue.asJsonPatch(this.toValue(), reference);
  }
}

const isMember = (target: Patch, key: string | symbol): boolean => typeof key === "symbol" || key in target;

const handler: ProxyHandler<Patch> = {
  get: (target, key, receiver) =>
    isMember(target, key) ? Reflect.get(target, key, receiver) : getOwn(target[STATE].dict, key as string),
  set: (target, key, value, receiver) => {
    if (typeof key === "string" && Object.hasOwn(VIEW_FIELDS, key))
      return Reflect.set(target, key, value, receiver);
    if (isMember(target, key)) return false;
    setOwn(target[STATE].dict, key as string, ownValue(value));
    return true;
  },
  deleteProperty: (target, key) => {
    if (typeof key !== "string") return false;
    delete target[STATE].dict[VIEW_FIELDS[key] ?? key];
    return true;
  },
  // `"status" in patch` asks the merge patch (as in Kopf), `"clear" in patch` the class.
  has: (target, key) =>
    typeof key === "string" && (Object.hasOwn(VIEW_FIELDS, key) || !(key in target))
      ? hasOwn(target[STATE].dict, VIEW_FIELDS[key] ?? key)
      : Reflect.has(target, key),
  ownKeys: (target) => Object.keys(target[STATE].dict),
  getOwnPropertyDescriptor: (target, key) => {
    const dict = target[STATE].dict;
    if (typeof key !== "string" || !hasOwn(dict, key)) return undefined;
    return { value: getOwn(dict, key), writable: true, enumerable: true, configurable: true };
  },
};

/**
 * A new, empty patch for `body`.
 *
 * @example
 * const patch = make(body)
 */
export const make = (body?: RawBody | null): Patch => new Patch(body);

/**
 * Whether the patch has nothing to apply (no field, no function).
 *
 * @example
 * isEmpty(make()) // true
 */
export const isEmpty = (patch: Patch): boolean => patch.isEmpty();
