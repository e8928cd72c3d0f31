// A resource with two versions used across the tests: v1 has `size`, v2 renamed it `replicas`.
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { CustomResource, Markers } from "../src/index.ts";

export const SpecV1 = Schema.Struct({
  size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
  mode: Schema.Literals(["fast", "safe"]).pipe(Markers.withDefault("safe")),
  name: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[a-z]+$/), Schema.isMaxLength(8))),
});
export const SpecV2 = Schema.Struct({
  replicas: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
  mode: Schema.Literals(["fast", "safe"]).pipe(Markers.withDefault("safe")),
  name: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[a-z]+$/), Schema.isMaxLength(8))),
});
export const Status = Schema.Struct({ phase: Schema.optionalKey(Schema.String) });

export const Example = Result.getOrThrow(
  CustomResource.define({
    group: "kopf.dev",
    kind: "TypedExample",
    plural: "typedexamples",
    shortNames: ["tex"],
    versions: {
      v1: { spec: SpecV1, status: Status },
      v2: {
        spec: SpecV2,
        status: Status,
        printerColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }],
      },
    },
    storage: "v2",
    conversion: {
      v1: {
        toStorage: ({ spec, status }) => ({
          spec: {
            replicas: spec.size,
            mode: spec.mode,
            ...(spec.name === undefined ? {} : { name: spec.name }),
          },
          ...(status === undefined ? {} : { status }),
        }),
        fromStorage: ({ spec, status }) => ({
          spec: {
            size: spec.replicas,
            mode: spec.mode,
            ...(spec.name === undefined ? {} : { name: spec.name }),
          },
          ...(status === undefined ? {} : { status }),
        }),
      },
    },
  }),
);
