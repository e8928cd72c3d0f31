// Blocks 1 and 2 of docs/guide/typed-resources.md, type-checked.
import { Schema } from "effect";
import * as kopf from "kopf";

export const KopfTyped = kopf.resource({
  group: "kopf.dev",
  kind: "KopfTyped",
  plural: "kopftypeds",
  shortNames: ["ktyped"], // also: singular, scope ("Namespaced" by default), categories
  versions: {
    v1: {
      spec: Schema.Struct({
        replicas: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
        mode: Schema.Literals(["fast", "safe"]).pipe(kopf.Resources.withDefault("safe")),
        owner: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[a-z]+$/))),
      }),
      status: Schema.Struct({ phase: Schema.optionalKey(Schema.Literals(["Pending", "Ready"])) }),
      printerColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }],
      // also: served, deprecated (true or the warning text), scale: { specReplicasPath, statusReplicasPath }
    },
  },
  storage: "v1",
});

kopf.on.create(KopfTyped, function created({ spec, patch, logger }) {
  logger.info(`${spec.replicas} replicas, ${spec.mode}`); // spec.replicas: number, spec.mode: "fast" | "safe"
  patch.status.phase = "Ready"; // patch.status.phase = "Done" does not compile
});

kopf.on.validate(KopfTyped, function check({ new: body }) {
  if (body !== undefined && body.spec.replicas > 5) throw new kopf.AdmissionError("Too many.");
});
