// Covers the event body of docs/behaviour/events-and-logs.md#posting-events (vectors docs/behaviour/events-and-logs.md#posting-events): message shortening to 1024 characters
// keeping the start and the end, the involved object without falsy fields and with the target
// namespace, the fallback namespace for cluster-scoped objects, Kopf's fixed fields and the
// skipping of events about core v1 Events.
import { assert, describe, it } from "@effect/vitest";
import fc from "fast-check";
import { eventBody, isSkipped, MAX_MESSAGE_LENGTH, shortenMessage } from "../src/Events.ts";

const context = {
  namePrefix: "kopf-event-",
  reportingComponent: "kopf",
  reportingInstance: "dev",
  fallbackNamespace: "fallback",
  now: Date.UTC(2020, 11, 31, 23, 59, 59, 123),
};

describe("shortenMessage", () => {
  it("keeps 511 leading and 510 trailing characters around '...'", () => {
    const message = "start" + "x".repeat(2048) + "end";
    const short = shortenMessage(message);
    assert.strictEqual(short.length, 1024);
    assert.strictEqual(short.slice(0, 511), message.slice(0, 511));
    assert.strictEqual(short.slice(511, 514), "...");
    assert.strictEqual(short.slice(514), message.slice(-510));
  });

  it("never exceeds the limit and leaves short messages alone (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), (message) => {
        const short = shortenMessage(message);
        assert.isAtMost(short.length, MAX_MESSAGE_LENGTH);
        if (message.length <= MAX_MESSAGE_LENGTH) assert.strictEqual(short, message);
      }),
    );
  });
});

describe("eventBody", () => {
  it("builds Kopf's body in the object's namespace", () => {
    const { namespace, body } = eventBody(
      { apiVersion: "v1", kind: "Pod", name: "p", uid: "", namespace: "ns1" },
      { type: "Warning", reason: "Oops", message: "bad" },
      context,
    );
    assert.strictEqual(namespace, "ns1");
    assert.deepStrictEqual(body, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { namespace: "ns1", generateName: "kopf-event-" },
      action: "Action?",
      type: "Warning",
      reason: "Oops",
      message: "bad",
      reportingComponent: "kopf",
      reportingInstance: "dev",
      source: { component: "kopf" },
      involvedObject: { apiVersion: "v1", kind: "Pod", name: "p", namespace: "ns1" },
      firstTimestamp: "2020-12-31T23:59:59.123000+00:00",
      lastTimestamp: "2020-12-31T23:59:59.123000+00:00",
      eventTime: "2020-12-31T23:59:59.123000+00:00",
    });
  });

  it("cluster-scoped objects go to the fallback namespace", () => {
    const { namespace, body } = eventBody(
      { apiVersion: "v1", kind: "Node", name: "n" },
      { type: "Normal", reason: "R" },
      context,
    );
    assert.strictEqual(namespace, "fallback");
    assert.strictEqual((body.involvedObject as { namespace?: string }).namespace, "fallback");
    assert.strictEqual(body.message, "");
  });

  it.each([
    [{ apiVersion: "v1", kind: "Event" }, true],
    [{ apiVersion: "events.k8s.io/v1", kind: "Event" }, false],
    [{ apiVersion: "v1", kind: "Pod" }, false],
  ])("skips events about %j: %s", (ref, skipped) => {
    assert.strictEqual(isSkipped(ref), skipped);
  });
});
