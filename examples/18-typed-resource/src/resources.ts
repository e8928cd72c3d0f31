/**
 * Example 18's resource, declared once: `KopfTyped` (`kopftypeds.kopf.dev`) in two versions. v1
 * has a `size`; v2, the storage version, calls it `replicas` and adds a `tier`. The conversion
 * functions map one to the other; the operator's admission server offers them to the API server
 * as the CRD's conversion webhook. `kopf crd src/resources.ts` prints the CRD.
 */
import { Schema } from "effect";
import * as kopf from "kopf";

/** The tier a v1 object gets in v2: large above 5 replicas. */
const tierOf = (size: number): "small" | "large" => (size > 5 ? "large" : "small");

const Mode = Schema.Literals(["fast", "safe"]).pipe(kopf.Resources.withDefault("safe"));

const Status = Schema.Struct({
  phase: Schema.optionalKey(Schema.Literals(["Pending", "Ready"])),
  replicas: Schema.optionalKey(Schema.Int),
});

export const KopfTyped = kopf.resource({
  group: "kopf.dev",
  kind: "KopfTyped",
  plural: "kopftypeds",
  shortNames: ["ktyped"],
  versions: {
    v1: {
      spec: Schema.Struct({
        size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
        mode: Mode,
      }),
      status: Status,
      deprecated: "kopf.dev/v1 KopfTyped is deprecated; use kopf.dev/v2",
    },
    v2: {
      spec: Schema.Struct({
        replicas: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
        mode: Mode,
        tier: Schema.Literals(["small", "large"]).pipe(kopf.Resources.withDefault("small")),
      }),
      status: Status,
      printerColumns: [
        { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
        { name: "Phase", type: "string", jsonPath: ".status.phase" },
      ],
    },
  },
  storage: "v2",
  conversion: {
    v1: {
      toStorage: ({ spec, status }) => ({
        spec: { replicas: spec.size, mode: spec.mode, tier: tierOf(spec.size) },
        ...(status === undefined ? {} : { status }),
      }),
      fromStorage: ({ spec, status }) => ({
        spec: { size: spec.replicas, mode: spec.mode },
        ...(status === undefined ? {} : { status }),
      }),
    },
  },
});
