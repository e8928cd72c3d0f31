/**
 * Kopf's example 17: admission webhooks. A validating handler reports the client certificate it
 * was called with as a warning; two validating handlers reject wrong fields (one with a custom
 * HTTP code); a mutating handler injects a field into labelled objects. The operator manages
 * the `auto.kopf.dev` Validating/MutatingWebhookConfigurations itself.
 */
import { type ClientConfig, WebhookServer, type WebhookServerProtocol } from "@kopf/admission";
import * as kopf from "kopf";

/**
 * The admission settings: a k3d-reachable server (see the README for the other servers and the
 * tunnel), its CA dumped to `ca.pem` for curl, and the managed configurations' name.
 */
export const admission = (
  options: {
    readonly cadump?: string | undefined;
    readonly server?: WebhookServerProtocol.WebhookServerProtocol | undefined;
  } = {},
) => ({
  managed: "auto.kopf.dev",
  server: options.server ?? WebhookServer.WebhookK3dServer({ cadump: options.cadump }),
  // Other servers:
  //   WebhookServer.WebhookServer({ host: "my-machine.local", port: 9443 })
  //   WebhookServer.WebhookMinikubeServer(), WebhookServer.WebhookDockerDesktopServer()
  //   WebhookAutoServer.WebhookAutoServer(), WebhookNgrokTunnel.WebhookNgrokTunnel({ token })
});

export type { ClientConfig };

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
