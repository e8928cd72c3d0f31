/**
 * Example 18's handlers, on the typed resource: `spec`, `status` and `patch.status` are typed
 * from its Schemas (no casts), and the body is decoded first — an object that does not decode
 * (stored before a schema change) gets a Warning event naming the field instead of a call. The
 * validating webhook sees the typed body too.
 */
import * as kopf from "kopf";
import { KopfTyped } from "./resources.ts";

/** The admission server: it serves the validating webhook and the conversion webhook. */
kopf.on.startup(function config({ settings }) {
  settings.admission.server ??= kopf.WebhookK3dServer({ cadump: "ca.pem" });
  settings.admission.managed = "typed.kopf.dev";
});

kopf.on.create(KopfTyped, function created({ spec, patch, logger }) {
  logger.info(`Creating ${spec.replicas} replicas, ${spec.mode}, ${spec.tier}`);
  patch.status.phase = "Ready";
  patch.status.replicas = spec.replicas;
});

kopf.on.update(KopfTyped, { field: "spec.replicas" }, function resized({ spec, patch }) {
  patch.status.replicas = spec.replicas;
});

kopf.on.validate(KopfTyped, function tiers({ new: body }) {
  if (body !== undefined && body.spec.tier === "small" && body.spec.replicas > 5) {
    throw new kopf.AdmissionError("A small tier runs at most 5 replicas.");
  }
});
