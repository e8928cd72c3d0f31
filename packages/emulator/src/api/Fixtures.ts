/**
 * Fixtures of the emulator: `apply` (create, or replace when it exists, each object through the
 * API as the admin, so validation, defaults and admission apply as for any client) and
 * `importState` (restore a saved `--state` file into the store as it was: uids, resourceVersions
 * and CRDs' types kept, nothing re-validated).
 */
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Crd from "./Crd.ts";
import type { ApiRequest, ApiResponse } from "./Emulator.ts";
import { isObject, type JsonObject, metaOf, str } from "./internal/Json.ts";
import { keyOf, type ResourceType } from "./ResourceType.ts";
import type { Store, Table } from "./Store.ts";

/** Every stored object, for saving and restoring the emulator (`--state FILE`). */
export interface EmulatorState {
  readonly resourceVersion: string;
  readonly objects: ReadonlyArray<unknown>;
}

/** A fixture could not be applied. */
export class EmulatorError extends Data.TaggedError("EmulatorError")<{
  readonly reason: "UnknownKind" | "Rejected";
  readonly message: string;
}> {}

const ADMIN = { username: "system:admin", groups: ["system:masters", "system:authenticated"] };

/**
 * The fixture operations over a store and the emulator's request handler.
 *
 * @example
 * ```ts
 * const fixtures = Fixtures.make(store, handle)
 * yield* fixtures.apply([crd, object])
 * ```
 */
export const make = (store: Store, handle: (request: ApiRequest) => Effect.Effect<ApiResponse>) => {
  const typeOfObject = (obj: JsonObject): Table | undefined => {
    const apiVersion = str(obj.apiVersion) ?? "";
    const group = apiVersion.includes("/") ? (apiVersion.split("/")[0] as string) : "";
    const version = apiVersion.includes("/") ? (apiVersion.split("/")[1] as string) : apiVersion;
    for (const table of store.tables.values())
      if (table.type.group === group && table.type.kind === obj.kind && table.type.versions.includes(version))
        return table;
    return undefined;
  };
  const pathOf = (
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name?: string,
  ): string => {
    const prefix = type.group === "" ? `/api/${version}` : `/apis/${type.group}/${version}`;
    const ns = type.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? "default")}` : "";
    return `${prefix}${ns}/${type.plural}${name === undefined ? "" : `/${encodeURIComponent(name)}`}`;
  };
  const applyOne = Effect.fnUntraced(function* (raw: unknown) {
    if (!isObject(raw))
      return yield* new EmulatorError({
        reason: "Rejected",
        message: "an object to apply is not a JSON object",
      });
    const table = typeOfObject(raw);
    if (table === undefined)
      return yield* new EmulatorError({
        reason: "UnknownKind",
        message: `no resource is served for ${String(raw.apiVersion)} ${String(raw.kind)}`,
      });
    const version = (str(raw.apiVersion) ?? "").split("/").pop() ?? "";
    const meta = metaOf(raw);
    const name = str(meta.name) ?? "";
    const namespace = table.type.namespaced ? (str(meta.namespace) ?? "default") : undefined;
    const base = {
      query: new URLSearchParams({ fieldManager: "kopf-emulator" }),
      headers: { "content-type": "application/json" },
      user: ADMIN,
    };
    const existing = table.get(namespace ?? "", name);
    const body =
      existing === undefined
        ? raw
        : { ...raw, metadata: { ...meta, resourceVersion: metaOf(existing).resourceVersion } };
    const response = yield* handle({
      ...base,
      method: existing === undefined ? "POST" : "PUT",
      path: pathOf(table.type, version, namespace, existing === undefined ? undefined : name),
      body: new TextEncoder().encode(JSON.stringify(body)),
    });
    if (response.status >= 300) {
      const text = response._tag === "Complete" ? new TextDecoder().decode(response.body) : "";
      return yield* new EmulatorError({
        reason: "Rejected",
        message: `${String(raw.kind)} ${name}: ${text}`,
      });
    }
  });
  const importState = (state: EmulatorState): Effect.Effect<void> =>
    Effect.gen(function* () {
      const objects = state.objects.filter(isObject);
      const crds = objects.filter((o) => o.kind === "CustomResourceDefinition");
      const ordered = [...crds, ...objects.filter((o) => o.kind !== "CustomResourceDefinition")];
      let maxRv = Number(state.resourceVersion) || 0;
      for (const obj of ordered) {
        const table = typeOfObject(obj);
        if (table === undefined) {
          yield* Effect.logWarning(
            `state: skipped an object of an unserved kind ${String(obj.apiVersion)} ${String(obj.kind)}`,
          );
          continue;
        }
        const meta = metaOf(obj);
        const ns = str(meta.namespace) ?? "";
        const names = table.byNamespace.get(ns) ?? new Map<string, JsonObject>();
        if (!names.has(str(meta.name) ?? "")) table.size++;
        names.set(str(meta.name) ?? "", obj);
        table.byNamespace.set(ns, names);
        store.byUid.set(str(meta.uid) ?? "", {
          key: keyOf(table.type),
          namespace: ns,
          name: str(meta.name) ?? "",
        });
        maxRv = Math.max(maxRv, Number(meta.resourceVersion) || 0);
        if (obj.kind === "CustomResourceDefinition") {
          const type = Crd.resourceTypeOf(obj);
          if (type !== undefined && !store.tables.has(keyOf(type))) store.addTable(type);
        }
      }
      store.rv = Math.max(store.rv, maxRv);
      store.compact();
    });
  const apply = (objects: ReadonlyArray<unknown>): Effect.Effect<void, EmulatorError> =>
    Effect.forEach(objects, applyOne, { discard: true });
  return { apply, importState };
};
