/**
 * Kopf's example 11: filtering handlers. Labels and annotations by exact value, presence,
 * absence or a callback; whole-object `when` callbacks; field values (exact or presence); and
 * update handlers for a specific old → new change of a field. Only the handlers whose filters
 * match the object run.
 */
import * as kopf from "kopf";

type Ctx = { readonly spec: { readonly [key: string]: unknown } };

const sayYes = (value: string | undefined, { spec }: Ctx) =>
  value === "somevalue" && spec.field !== undefined;
const sayNo = (value: string | undefined, { spec }: Ctx) =>
  value === "somevalue" && spec.field === "not-this-value-for-sure";

kopf.on.create(
  "kopfexamples",
  { labels: { somelabel: "somevalue" } },
  function create_with_labels_matching({ logger }) {
    logger.info("Label is matching.");
  },
);

kopf.on.create(
  "kopfexamples",
  { labels: { somelabel: kopf.PRESENT } },
  function create_with_labels_present({ logger }) {
    logger.info("Label is present.");
  },
);

kopf.on.create(
  "kopfexamples",
  { labels: { nonexistent: kopf.ABSENT } },
  function create_with_labels_absent({ logger }) {
    logger.info("Label is absent.");
  },
);

kopf.on.create(
  "kopfexamples",
  { labels: { somelabel: sayYes } },
  function create_with_labels_callback_matching({ logger }) {
    logger.info("Label callback matching.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { someannotation: "somevalue" } },
  function create_with_annotations_matching({ logger }) {
    logger.info("Annotation is matching.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { someannotation: kopf.PRESENT } },
  function create_with_annotations_present({ logger }) {
    logger.info("Annotation is present.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { nonexistent: kopf.ABSENT } },
  function create_with_annotations_absent({ logger }) {
    logger.info("Annotation is absent.");
  },
);

kopf.on.create(
  "kopfexamples",
  { annotations: { someannotation: sayNo } },
  function create_with_annotations_callback_matching({ logger }) {
    logger.info("Annotation callback mismatch.");
  },
);

kopf.on.create("kopfexamples", { when: () => true }, function create_with_filter_satisfied({ logger }) {
  logger.info("Filter satisfied.");
});

kopf.on.create("kopfexamples", { when: () => false }, function create_with_filter_not_satisfied({ logger }) {
  logger.info("Filter not satisfied.");
});

kopf.on.create(
  "kopfexamples",
  { field: "spec.field", value: "value" },
  function create_with_field_value_satisfied({ logger }) {
    logger.info("Field value is satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.field", value: "something-else" },
  function create_with_field_value_not_satisfied({ logger }) {
    logger.info("Field value is not satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.field", value: kopf.PRESENT },
  function create_with_field_presence_satisfied({ logger }) {
    logger.info("Field presence is satisfied.");
  },
);

kopf.on.create(
  "kopfexamples",
  { field: "spec.inexistent", value: kopf.PRESENT },
  function create_with_field_presence_not_satisfied({ logger }) {
    logger.info("Field presence is not satisfied.");
  },
);

kopf.on.update(
  "kopfexamples",
  { field: "spec.field", old: "value", new: "changed" },
  function update_with_field_change_satisfied({ logger }) {
    logger.info("Field change is satisfied.");
  },
);

// A daemon runs only while its filters match: it is stopped when spec.field changes to another
// value (filters-mismatch) and started again when it is "value" again.
kopf.daemon(
  "kopfexamples",
  { field: "spec.field", value: "value" },
  async function daemon_with_field({ stopped, logger }) {
    while (!stopped.isSet()) {
      logger.info("Field daemon is executed.");
      await stopped.wait(1);
    }
    logger.info("Field daemon is stopped.");
  },
);
