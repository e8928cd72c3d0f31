// The typed-resource block of docs/guide/handlers.md, type-checked.
import { Schema } from "effect";
import * as kopf from "kopf";

const KopfTyped = kopf.resource({
  group: "kopf.dev",
  kind: "KopfTyped",
  plural: "kopftypeds",
  versions: {
    v1: {
      spec: Schema.Struct({ replicas: Schema.Int, mode: Schema.Literals(["fast", "safe"]) }),
      status: Schema.Struct({ phase: Schema.optionalKey(Schema.String) }),
    },
  },
  storage: "v1",
});

kopf.on.create(KopfTyped, function created({ spec, patch }) {
  patch.status.phase = `running ${spec.replicas}`; // spec.replicas: number — no casts
});
