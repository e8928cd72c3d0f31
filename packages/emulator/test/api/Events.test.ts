/** Events: events.k8s.io/v1 serves the same stored objects as core v1, converted field by field. */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { run, send } from "./Harness.ts";

const CORE = "/api/v1/namespaces/default/events";
const NEW = "/apis/events.k8s.io/v1/namespaces/default/events";

describe("events", () => {
  it("serves a core event through events.k8s.io/v1", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", CORE, {
          metadata: { name: "e1" },
          involvedObject: { kind: "ConfigMap", name: "a", namespace: "default" },
          reason: "R",
          message: "m",
          type: "Normal",
        });
        return yield* send("GET", `${NEW}/e1`);
      }),
    );
    expect(r.status).toBe(200);
    const { metadata: _m, ...rest } = r.body;
    expect(rest).toEqual({
      kind: "Event",
      apiVersion: "events.k8s.io/v1",
      eventTime: null,
      reason: "R",
      regarding: { kind: "ConfigMap", name: "a", namespace: "default" },
      note: "m",
      type: "Normal",
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
  });

  it("stores an events.k8s.io event as a core one, with field selectors on either side", async () => {
    const r = await run(
      Effect.gen(function* () {
        yield* send("POST", NEW, {
          apiVersion: "events.k8s.io/v1",
          kind: "Event",
          metadata: { name: "e2" },
          regarding: { kind: "Pod", name: "p" },
          reason: "R",
          note: "n",
          type: "Warning",
          eventTime: "2024-01-01T00:00:00.000000Z",
          reportingController: "kopf.dev/op",
          reportingInstance: "i",
          action: "Do",
        });
        const core = yield* send("GET", `${CORE}/e2`);
        const selected = yield* send("GET", `${NEW}?fieldSelector=regarding.kind%3DPod`);
        const coreSelected = yield* send("GET", `${CORE}?fieldSelector=involvedObject.kind%3DPod`);
        return { core, selected, coreSelected };
      }),
    );
    expect(r.core.body).toMatchObject({
      kind: "Event",
      apiVersion: "v1",
      involvedObject: { kind: "Pod", name: "p" },
      message: "n",
      reportingComponent: "kopf.dev/op",
      reportingInstance: "i",
    });
    expect(r.selected.body.items.map((i: any) => i.metadata.name)).toEqual(["e2"]);
    expect(r.coreSelected.body.items.map((i: any) => i.metadata.name)).toEqual(["e2"]);
  });
});
