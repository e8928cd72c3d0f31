/**
 * The live body of daemons and timers (docs/behaviour/daemons-timers.md#common-rules): one object per watched object whose content
 * follows the latest watch event, so a long-running daemon reading `body.spec` (or its `spec`,
 * `meta`, `status`, `labels`, `annotations` fields) always sees the current state. Implemented
 * with read-only proxies over the current raw body; writing through them is not supported (use
 * the `patch`), as in Kopf where the body is a read-only view.
 */
import type { RawBody } from "@kopf/structs";

/** A live body and its section views. */
export interface LiveBody {
  /** The latest raw body. */
  readonly current: () => RawBody;
  /** Replaces the content seen through the views. */
  readonly update: (body: RawBody) => void;
  /** The context fields overriding the snapshot ones. */
  readonly fields: {
    readonly body: RawBody;
    readonly spec: unknown;
    readonly meta: unknown;
    readonly status: unknown;
    readonly labels: unknown;
    readonly annotations: unknown;
  };
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

const view = (resolve: () => unknown): object => {
  const target = (): Record<string | symbol, unknown> => {
    const value = resolve();
    return (typeof value === "object" && value !== null ? value : EMPTY) as Record<string | symbol, unknown>;
  };
  return new Proxy(
    {},
    {
      get: (_, key) => target()[key],
      has: (_, key) => key in target(),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
        return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
      },
      set: () => false,
      deleteProperty: () => false,
      defineProperty: () => false,
    },
  );
};

/**
 * A live body starting with `body`.
 *
 * @example
 * ```ts
 * const live = LiveBody.make(event.object)
 * live.update(nextEvent.object) // live.fields.spec now shows the new spec
 * ```
 */
export const make = (body: RawBody): LiveBody => {
  let current = body;
  const section = (key: string) => () => (current as Record<string, unknown>)[key];
  const metaOf = () => current.metadata as Record<string, unknown> | undefined;
  return {
    current: () => current,
    update: (next) => {
      current = next;
    },
    fields: {
      body: view(() => current) as RawBody,
      spec: view(section("spec")),
      meta: view(section("metadata")),
      status: view(section("status")),
      labels: view(() => metaOf()?.labels),
      annotations: view(() => metaOf()?.annotations),
    },
  };
};
