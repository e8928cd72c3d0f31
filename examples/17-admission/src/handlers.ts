/**
 * Kopf's example 17: admission webhooks. A validating handler reports the client certificate it
 * was called with as a warning; two validating handlers reject wrong fields (one with a custom
 * HTTP code); a mutating handler injects a field into labelled objects. The operator manages
 * the `auto.kopf.dev` Validating/MutatingWebhookConfigurations itself.
 */
import * as kopf from "kopf";

/**
 * The admission settings, as Kopf's example configures them in a startup handler: a
 * k3d-reachable server with its CA dumped to `ca.pem` for curl (unless a server was configured
 * already, e.g. by a test or an embedding application), and the managed configurations' name.
 * Other servers: `kopf.WebhookServer({ host: "my-machine.local", port: 9443 })`,
 * `kopf.WebhookMinikubeServer()`, `kopf.WebhookDockerDesktopServer()`,
 * `kopf.WebhookAutoServer()`, `kopf.WebhookAutoTunnel()`, `kopf.WebhookNgrokTunnel({ token })`.
 */
kopf.on.startup(function config({ settings }) {
  settings.admission.server ??= kopf.WebhookK3dServer({ cadump: "ca.pem" });
  settings.admission.managed = "auto.kopf.dev";
});

kopf.on.validate("kex", function authhook({ sslpeer, warnings }) {
  const subject = sslpeer.subject as Readonly<Record<string, string>> | undefined;
  if (subject === undefined) {
    warnings.push("SSL peer is not identified.");
  } else if (subject.CN === undefined) {
    warnings.push("SSL peer's common name is absent.");
  } else {
    warnings.push(`SSL peer is ${subject.CN}.`);
  }
});

kopf.on.validate("kex", function validate1({ spec, dryrun }) {
  if (!dryrun && spec.field === "wrong") {
    throw new kopf.AdmissionError("Meh! I don't like it. Change the field.");
  }
});

kopf.on.validate("kex", { field: "spec.field", value: "not-allowed" }, function validate2() {
  throw new kopf.AdmissionError("I'm too lazy anyway. Go away!", { code: 555 });
});

kopf.on.mutate("kex", { labels: { somelabel: "somevalue" } }, function mutate1({ patch }) {
  patch.spec.injected = 123;
});
