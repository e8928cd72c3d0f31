/** docs/guide/admission.md: webhook handlers, and the webhook server configured as in Kopf. */
import { Admission, WebhookServer } from "@kopf/admission";
import { KubeClient } from "@kopf/client";
import { Operating } from "@kopf/engines";
import { Effect } from "effect";
import * as kopf from "kopf";

// block: handlers
kopf.on.validate("kopfexamples", function check_field({ spec, warnings }) {
  if (spec.field === "wrong") throw new kopf.AdmissionError("spec.field must not be 'wrong'.", { code: 400 });
  if (spec.field === undefined) warnings.push("spec.field is not set.");
});

kopf.on.mutate("kopfexamples", { operations: ["CREATE"] }, function defaults({ spec, patch }) {
  if (spec.size === undefined) patch.spec.size = 1;
});

// block: startup
kopf.on.startup(function configure_webhooks({ settings }) {
  settings.admission.server = WebhookServer.WebhookServer({ host: "127.0.0.1", port: 9443 });
  settings.admission.managed = "auto.kopf.dev"; // the Validating/MutatingWebhookConfigurations
});

// block: effect
export const operator = Operating.run({
  registry: kopf.getDefaultRegistry(),
  namespaces: ["default"],
  settings: { admission: { server: WebhookServer.WebhookK3dServer(), managed: "auto.kopf.dev" } },
  tasks: [Admission.task], // what kopf run and kopf.run() add
}).pipe(Effect.provide(KubeClient.layer()));
