/** A resource context for tests: every field a distinct value, so tests can check they are carried through. */
import type { ResourceCause } from "../../src/index.ts";

export const context = (): ResourceCause.ResourceContext =>
  ({
    resource: { group: "kopf.dev", version: "v1", plural: "kopfexamples" },
    patch: { marker: "patch" },
    logger: { marker: "logger" },
    memo: { marker: "memo" },
    indices: { myindex: { marker: "index" } },
  }) as unknown as ResourceCause.ResourceContext;
