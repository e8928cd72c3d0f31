/** docs/guide/getting-started.md: the handlers `npm create kopf` writes for --group acme.io --kind Database. */
import * as kopf from "kopf";

/** What a Database asks for (its spec, as crd.yaml declares it). */
export interface DatabaseSpec {
  readonly message: string;
  readonly replicas?: number;
}

/** A Database object (databases.acme.io/v1). */
export interface Database {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string };
  readonly spec: DatabaseSpec;
  readonly status?: Record<string, unknown>;
}

kopf.on.create<Database>("databases.acme.io", function create_database({ spec, name, logger }) {
  logger.info(`Creating ${name}: ${spec.message}`);
  return { message: `created: ${spec.message}`, replicas: spec.replicas ?? 1 };
});

kopf.on.update<Database>(
  "databases.acme.io",
  { field: "spec.message" },
  function message_changed({ old, new: value, logger }) {
    logger.info(`The message changed from ${JSON.stringify(old)} to ${JSON.stringify(value)}`);
  },
);

kopf.on.delete<Database>("databases.acme.io", function delete_database({ name, logger }) {
  logger.info(`Deleting ${name}: cleaning up what it owns`);
});
