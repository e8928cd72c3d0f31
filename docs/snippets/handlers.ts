/** docs/guide/handlers.md: its TypeScript blocks. Type-checked, never run: nothing here runs at import but registrations. */

import { Effect } from "effect";
import * as kopf from "kopf";
import { kind } from "kubernetes-fluent-client";

// block 1
kopf.on.create("kopfexamples", function create_fn({ logger }) {
  logger.info("created");
});

kopf.on.update("kopfexamples.kopf.dev", { id: "resize", field: "spec.size" }, ({ old, new: size }) => {
  return { resizedFrom: old, resizedTo: size };
});

// block 2
kopf.on.create(kind.Pod, function pod_created({ body, logger }) {
  logger.info(`Pod ${body.metadata?.name} has ${body.spec?.containers.length} containers`);
});

// block 3
export const registry = kopf.Registry.make();
registry.on.create("kopfexamples", function create_fn({ patch }) {
  patch.status.phase = "Created";
});

// block 4
interface Example {
  readonly metadata?: kopf.ObjectMeta;
  readonly spec?: { readonly size?: number; readonly image?: string };
}

kopf.on.create("kopfexamples", function sized({ spec, logger }: kopf.ChangingContext<Example>) {
  logger.info(`size ${spec.size ?? 1}, image ${spec.image ?? "none"}`);
});

// block 5
kopf.on.create("kopfexamples", async function fetched({ spec }) {
  const response = await fetch(`https://example.com/things/${String(spec.field)}`);
  return { status: response.status };
});

kopf.on.create("kopfexamples", function effectful({ name }) {
  return Effect.gen(function* () {
    yield* Effect.sleep("1 second");
    yield* Effect.logInfo(`waited for ${name}`);
    return { waited: true };
  });
});

// block 6
kopf.on.update("kopfexamples", function relabel({ patch, spec }) {
  patch.metadata.labels = { size: String(spec.size ?? "none"), obsolete: null }; // null removes a label
  patch.status.phase = "Updated";
  return { seen: spec.size ?? null }; // status.relabel.seen
});

// block 7
kopf.on.create(
  "kopfexamples",
  { retries: 5, timeout: 600, backoff: 15 },
  function provision({ spec, retry }) {
    if (spec.field === undefined) throw new kopf.PermanentError("spec.field is required");
    if (retry < 2) throw new kopf.TemporaryError("the database is not ready yet", { delay: 10 });
    return { provisioned: true };
  },
);

// block 8
kopf.on.create("kopfexamples", function create_children({ spec }) {
  const items = (spec.items as ReadonlyArray<string> | undefined) ?? [];
  for (const item of items) {
    kopf.subhandler({ id: `item-${item}` }, async function create_item({ logger }) {
      logger.info(`creating ${item}`);
    });
  }
});

// block 9
kopf.on.create(
  "kopfexamples",
  {
    labels: { app: "demo", tier: kopf.PRESENT, legacy: kopf.ABSENT },
    annotations: { owner: (value) => value?.endsWith("@example.com") ?? false },
    field: "spec.size",
    value: kopf.PRESENT,
    when: ({ namespace }) => namespace !== "kube-system",
  },
  function filtered({ logger }) {
    logger.info("a demo object with a size");
  },
);

kopf.on.update(
  "kopfexamples",
  { field: "spec.phase", old: "Pending", new: "Running" },
  function started() {},
);

const isBig = (value: unknown) => typeof value === "number" && value > 10;
const isHuge = (value: unknown) => typeof value === "number" && value > 100;
kopf.on.field(
  "kopfexamples",
  { field: "spec.size", value: kopf.all_([isBig, kopf.not_(isHuge)]) },
  function big() {},
);

// block 10
kopf.on.create("kopfexamples", function announce({ body }) {
  kopf.info(body, { reason: "Created", message: "The example is ready." });
  try {
    JSON.parse("{not json");
  } catch (exc) {
    kopf.exception(body, { reason: "ParseFailed", message: "Could not parse:", exc });
  }
});
