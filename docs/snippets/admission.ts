/** docs/guide/admission.md: webhook handlers and an operator that serves them. */
import { Admission, WebhookServer } from "@kopf/admission";
import { KubeClient } from "@kopf/client";
import { Logging, Signals } from "@kopf/runtime";
import { Effect, Layer } from "effect";
import * as kopf from "kopf";

// block: handlers
kopf.on.validate("kopfexamples", function check_field({ spec, warnings }) {
  if (spec.field === "wrong") throw new kopf.AdmissionError("spec.field must not be 'wrong'.", { code: 400 });
  if (spec.field === undefined) warnings.push("spec.field is not set.");
});

kopf.on.mutate("kopfexamples", { operations: ["CREATE"] }, function defaults({ spec, patch }) {
  if (spec.size === undefined) patch.spec.size = 1;
});

// block: operate
const settings = {
  admission: {
    server: WebhookServer.WebhookServer({ host: "127.0.0.1", port: 9443 }),
    managed: "auto.kopf.dev", // the name of the Validating/MutatingWebhookConfigurations
  },
};
const operator = Admission.operate({
  registry: kopf.getDefaultRegistry(),
  namespaces: ["default"],
  settings,
});

const logging = Logging.layer({ format: "full", write: (line) => process.stderr.write(`${line}\n`) });
export const main = async (): Promise<void> => {
  const program = Signals.stopOnSignals(operator).pipe(
    Effect.provide(Layer.mergeAll(Layer.provide(KubeClient.layer(), logging), logging)),
  );
  process.exitCode = await Effect.runPromise(program);
};
