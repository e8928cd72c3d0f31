/**
 * Example 04 through `kopf run` on the selected cluster (KOPF_TEST_CLUSTER; the emulator by default): the handler's four calls leave four
 * Kubernetes events about the object, with the types, reasons and messages Kopf gives them
 * (the exception's text appended to the message).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

/** The fields of an event the test looks at, read from the listed body. */
const eventOf = (body: KopfRunner.Body) => {
  const ref = body.involvedObject;
  const about = Object.fromEntries(typeof ref === "object" && ref !== null ? Object.entries(ref) : []);
  return {
    type: String(body.type),
    reason: String(body.reason),
    message: String(body.message),
    involvedObject: { name: String(about.name), kind: String(about.kind), uid: about.uid },
  };
};

it("posts events of every kind about the object", async () => {
  await using runner = await KopfRunner.start({
    args: ["run", "-n", "default", "--standalone", join(here, "../src/handlers.ts")],
    cli: Cli.main,
    cwd: join(here, "../.."),
  });
  await runner.apply("crd.yaml");
  await runner.apply("obj.yaml");
  const object = await runner.waitFor(
    KopfRunner.kopfExamples,
    "kopf-example-1",
    "default",
    (b) => b !== undefined,
  );
  // Only this object's events: a real cluster posts its own (e.g. about the "kubernetes" service),
  // and a shared one keeps those of earlier objects with the same name.
  const list = async () =>
    (await runner.list(KopfRunner.events, "default"))
      .map(eventOf)
      .filter((e) => e.involvedObject.uid === object?.metadata?.uid);
  const deadline = Date.now() + 10_000;
  let events = await list();
  while (events.length < 4 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 100));
    events = await list();
  }
  expect(
    events
      .map((e) => ({ type: e.type, reason: e.reason, message: e.message, about: e.involvedObject.name }))
      .sort((a, b) => a.type.localeCompare(b.type)),
  ).toEqual([
    {
      type: "Error",
      reason: "SomeReason",
      message: "Some exception: Exception text.",
      about: "kopf-example-1",
    },
    { type: "Normal", reason: "SomeReason", message: "Some message", about: "kopf-example-1" },
    { type: "SomeType", reason: "SomeReason", message: "Some message", about: "kopf-example-1" },
    { type: "Warning", reason: "SomeReason", message: "Some message", about: "kopf-example-1" },
  ]);
  expect(events.every((e) => e.involvedObject.kind === "KopfExample")).toBe(true);
});
