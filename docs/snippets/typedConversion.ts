// Block 3 of docs/guide/typed-resources.md (the conversion of a two-version resource), type-checked.
import { Schema } from "effect";
import * as kopf from "kopf";

const Mode = Schema.Literals(["fast", "safe"]);

export const Converted = kopf.resource({
  group: "kopf.dev",
  kind: "KopfConverted",
  plural: "kopfconverteds",
  versions: {
    v1: { spec: Schema.Struct({ size: Schema.Int, mode: Mode }), status: Schema.Struct({}) },
    v2: { spec: Schema.Struct({ replicas: Schema.Int, mode: Mode }), status: Schema.Struct({}) },
  },
  storage: "v2",
  conversion: {
    v1: {
      toStorage: ({ spec, status }) => ({
        spec: { replicas: spec.size, mode: spec.mode },
        ...(status ? { status } : {}),
      }),
      fromStorage: ({ spec, status }) => ({
        spec: { size: spec.replicas, mode: spec.mode },
        ...(status ? { status } : {}),
      }),
    },
  },
});
