/**
 * The mutable `Patch` handlers write into (Kopf's `Patch`; docs/behaviour/processing.md#json-patches): plain objects for `metadata` (with
 * `labels` and `annotations`), `spec` and `status`, created up front, plus `fns`, functions that
 * transform the body in place. The framework reads it back as a `PatchValue` (a JSON merge patch
 * where `null` deletes a field, and the functions); sections left empty are dropped.
 */
import * as Result from "effect/Result";
import type { RawBody } from "./Body.ts";
import { getOwn, setOwn } from "./internal/ownKeys.ts";
import {
  defineSlot,
  empty,
  type HolderState,
  newSlot,
  type PatchObject,
  readSlot,
  readValue,
  type Slot,
  STATE,
  sectionIn,
  slotHasContent,
} from "./internal/patchSections.ts";
import { deepCopy, type JsonObject, type JsonValue } from "./Json.ts";
import type * as JsonPatch from "./JsonPatch.ts";
import type { PatchError, PatchFn } from "./PatchValue.ts";
import * as PatchValue from "./PatchValue.ts";

export type { PatchObject } from "./internal/patchSections.ts";
export type { PatchErrorReason, PatchFn } from "./PatchValue.ts";
export { applyMergePatch, PatchError } from "./PatchValue.ts";

/** The labels or annotations of a patch: strings, or `null` to delete one. */
export interface MetaMapPatch {
  [key: string]: string | null | undefined;
}

/** The `metadata` section of a patch, with its own `labels` and `annotations` sections. */
export interface MetaPatch extends PatchObject {
  get labels(): MetaMapPatch;
  set labels(value: Readonly<Record<string, string | null>> | null);
  get annotations(): MetaMapPatch;
  set annotations(value: Readonly<Record<string, string | null>> | null);
}

interface State extends HolderState {
  readonly fns: Array<PatchFn>;
  readonly original: RawBody | undefined;
  readonly slots: ReadonlyArray<readonly [string, Slot]>;
}

/** The nested sections of `metadata`. */
const META_NESTED: ReadonlyArray<string> = ["labels", "annotations"];

const METHODS = ["isEmpty", "clear", "toMergePatch", "toJSON", "toValue", "copy", "asJsonPatch"] as const;

/**
 * A mutable patch. `metadata` (alias `meta`) with `labels` and `annotations`, `spec` and
 * `status` are plain objects to write into; assigning a whole object replaces the field (and is
 * sent even if empty), assigning `null` deletes it. Every other top-level key (`patch["data"]`)
 * is a plain field of the merge patch. Values are copied when the patch is read back. The type
 * parameters type the `status` and `spec` sections.
 *
 * @example
 * const patch = new Patch(body)
 * patch.status.phase = "Ready"
 * patch.meta.annotations["example.com/note"] = null // deletes the annotation
 * patch.fns.push((b) => { b.metadata.finalizers.push("example.com/fin") })
 * patch.toMergePatch() // { metadata: { annotations: { "example.com/note": null } }, status: { phase: "Ready" } }
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the section accessors the interface declares are defined on each instance by the constructor.
export class Patch<S extends PatchObject = PatchObject, Spec extends PatchObject = PatchObject> {
  /** Any other top-level field of the merge patch. */
  [key: string]: unknown;
  declare readonly [STATE]: State;

  constructor(
    body?: RawBody | null,
    init?: { readonly mergePatch?: JsonObject; readonly fns?: Iterable<PatchFn> },
  ) {
    const metadata = newSlot(META_NESTED);
    const spec = newSlot();
    const status = newSlot();
    const fns = init?.fns;
    const state: State = {
      fns: fns === undefined ? [] : Array.isArray(fns) ? fns.slice() : [...fns],
      original: body ?? undefined,
      slots: [
        ["metadata", metadata],
        ["spec", spec],
        ["status", status],
      ],
      sections: {},
    };
    Object.defineProperty(this, STATE, { value: state });
    defineSlot(this, "metadata", metadata, true);
    defineSlot(this, "spec", spec, true);
    defineSlot(this, "status", status, true);
    defineSlot(this, "meta", metadata, false);
    const mergePatch = init?.mergePatch;
    if (mergePatch === undefined) return;
    for (const key of Object.keys(mergePatch)) {
      const value = getOwn(mergePatch, key);
      if (value !== undefined) (this as Record<string, unknown>)[key] = deepCopy(value);
    }
  }

  /** The functions applied to the body after the merge patch, in order (mutable). */
  get fns(): Array<PatchFn> {
    return this[STATE].fns;
  }

  /** The body this patch was made for: the default reference of `asJsonPatch`. */
  get original(): RawBody | undefined {
    return this[STATE].original;
  }

  /** Whether there is nothing to apply: no merge-patch field and no function. */
  isEmpty(): boolean {
    // Asked several times per processing cycle: answered without copying the merge patch.
    if (this[STATE].fns.length > 0) return false;
    for (const key of Object.keys(this)) {
      const slot = sectionIn(this, key, this[STATE].slots);
      if (slot === undefined ? this[key] !== undefined : slotHasContent(slot)) return false;
    }
    return true;
  }

  /** Forgets every field and function. */
  clear(): void {
    const slots = new Map(this[STATE].slots);
    for (const key of Object.keys(this)) if (!slots.has(key)) delete this[key];
    for (const [key, slot] of slots) empty(this, key, slot);
    this[STATE].fns.length = 0;
  }

  /** A deep copy of the merge patch (without the functions); empty, untouched sections are left out. */
  toMergePatch(): JsonObject {
    const slots = this[STATE].slots;
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(this)) {
      const slot = sectionIn(this, key, slots);
      const value = slot === undefined ? readValue(this[key]) : readSlot(slot);
      if (value !== undefined) setOwn(out, key, value);
    }
    return out;
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
    return { mergePatch: this.toMergePatch(), ops: [...this[STATE].fns] };
  }

  /** An independent patch with the same fields, functions and original body. */
  copy(): Patch<S, Spec> {
    return new Patch<S, Spec>(this[STATE].original, {
      mergePatch: this.toMergePatch(),
      fns: this[STATE].fns,
    });
  }

  /**
   * The JSON-patch operations that this patch amounts to against `body` (or the original body):
   * the merge patch and then the functions are applied to a copy, and the copy is diffed with
   * the reference. Neither body is mutated. An empty patch gives `[]`, even without a reference.
   *
   * @example
   * const patch = new Patch({ metadata: { finalizers: ["a"] } })
   * patch.fns.push((b) => b.metadata!.finalizers.push("b"))
   * patch.asJsonPatch() // Result.succeed([{ op: "add", path: "/metadata/finalizers/1", value: "b" }])
   */
  asJsonPatch(body?: RawBody | null): Result.Result<JsonPatch.JsonPatch, PatchError> {
    const value = this.toValue();
    if (PatchValue.isEmpty(value)) return Result.succeed([]);
    const reference = body ?? this[STATE].original;
    if (reference === undefined) {
      return Result.fail(
        new PatchValue.PatchError({
          reason: "NoReference",
          message: "Cannot build a JSON-patch without the original body as a reference.",
        }),
      );
    }
    return PatchValue.asJsonPatch(value, reference);
  }
}

// The methods are not fields of the merge patch: assigning to them fails instead of shadowing them
// (read-only on the prototype, so no patch needs properties of its own for them).
for (const name of METHODS) Object.defineProperty(Patch.prototype, name, { writable: false });

/** The sections of a patch: read them to write into them; assign an object or `null` to replace them. */
export interface Patch<S extends PatchObject = PatchObject, Spec extends PatchObject = PatchObject> {
  get metadata(): MetaPatch;
  set metadata(value: JsonObject | null);
  /** An alias of `metadata`. */
  get meta(): MetaPatch;
  set meta(value: JsonObject | null);
  get spec(): Spec;
  set spec(value: JsonObject | null);
  get status(): S;
  set status(value: JsonObject | null);
}

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
