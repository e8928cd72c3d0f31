// Covers the runner with an in-memory connection: request bodies and media types as sent,
// paths and bodies computed from earlier responses, selection before comparison, network
// failures recorded as status 0 without stopping the sequence, polls repeated until their
// condition (or timeout), and watches opened, collected (events, or the error body) and closed.
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { type Connection, ConnectionError, type OpenWatch, type RawResponse } from "../src/Connection.ts";
import type { Sequence, WatchEvent } from "../src/Interaction.ts";
import * as Runner from "../src/Runner.ts";
import { collect, get, MERGE, patch, poll, post, rvOf, watch } from "../src/sequences/internal/steps.ts";

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body?: { readonly text: string; readonly contentType: string } | undefined;
}

const fake = (
  answer: (sent: Sent) => RawResponse | "network",
  watchFor: (path: string) => OpenWatch = () => stream(200, []),
) => {
  const sent: Array<Sent> = [];
  const watched: Array<string> = [];
  const connection: Connection = {
    server: "https://fake",
    request: (method, path, body) => {
      const s = { method, path, body };
      sent.push(s);
      const a = answer(s);
      return a === "network"
        ? Effect.fail(new ConnectionError({ reason: "Network", message: `${method} ${path}: ECONNRESET` }))
        : Effect.succeed(a);
    },
    watch: (path) => {
      watched.push(path);
      return watchFor(path);
    },
    close: () => {},
  };
  return { connection, sent, watched };
};

const json = (status: number, body: unknown): RawResponse => ({
  status,
  mediaType: "application/json",
  text: JSON.stringify(body),
  warnings: [],
});

const stream = (status: number, events: ReadonlyArray<WatchEvent>, errorText?: string) => {
  let closed = false;
  const watch: OpenWatch & { readonly isClosed: () => boolean } = {
    status: () => status,
    mediaType: () => "application/json",
    events: () => events,
    errorText: () => errorText,
    ended: () => status !== 200,
    close: () => {
      closed = true;
    },
    isClosed: () => closed,
  };
  return watch;
};

const run = (connection: Connection, sequence: Sequence) =>
  Effect.runPromise(Runner.run(connection, sequence));

describe("Runner.run", () => {
  it("sends bodies as JSON with their media type, and computes paths and bodies from earlier responses", async () => {
    const { connection, sent } = fake((s) =>
      s.method === "POST"
        ? json(201, { metadata: { name: "a", resourceVersion: "42" } })
        : json(200, { ok: s.path }),
    );
    const outcomes = await run(connection, {
      name: "s",
      steps: [
        post("create", "/x", { a: 1 }),
        get("get", (e) => `/x?resourceVersion=${rvOf(e, "create")}`, {
          select: (b) => (b as { ok: string }).ok,
        }),
        patch("patch", "/x/a", MERGE, undefined, { bodyFrom: (e) => ({ rv: rvOf(e, "create") }) }),
      ],
    });
    expect(sent).toEqual([
      { method: "POST", path: "/x", body: { text: '{"a":1}', contentType: "application/json" } },
      { method: "GET", path: "/x?resourceVersion=42", body: undefined },
      { method: "PATCH", path: "/x/a", body: { text: '{"rv":"42"}', contentType: MERGE } },
    ]);
    expect(outcomes.map((o) => [o.interaction, o.status, o.body])).toEqual([
      ["s/create", 201, { metadata: { name: "a", resourceVersion: "42" } }],
      ["s/get", 200, "/x?resourceVersion=42"],
      ["s/patch", 200, { ok: "/x/a" }],
    ]);
  });

  it("records a network failure as status 0 and goes on", async () => {
    const { connection } = fake((s) =>
      s.path === "/broken" ? "network" : { status: 200, mediaType: "text/plain", text: "fine", warnings: [] },
    );
    const outcomes = await run(connection, { name: "s", steps: [get("a", "/broken"), get("b", "/ok")] });
    expect(outcomes.map((o) => [o.status, o.mediaType, o.body])).toEqual([
      [0, "", "GET /broken: ECONNRESET"],
      [200, "text/plain", "fine"],
    ]);
  });

  it("repeats a poll until its condition holds, and stops at its timeout", async () => {
    let calls = 0;
    const { connection } = fake(() => {
      calls++;
      return calls < 3 ? json(200, { phase: "Pending" }) : json(404, { reason: "NotFound" });
    });
    const [gone] = await run(connection, {
      name: "s",
      steps: [poll("gone", "/x", (status) => status === 404, 5_000)],
    });
    expect([gone?.status, calls]).toEqual([404, 3]);
    const [never] = await run(connection, { name: "s", steps: [poll("never", "/x", () => false, 300)] });
    expect(never?.status).toBe(404);
    expect(calls).toBeGreaterThan(3);
  });

  it("collects a watch's events, or its error body, and closes it", async () => {
    const events = [
      { type: "ADDED", object: { metadata: { name: "a" } } },
      { type: "DELETED", object: { metadata: { name: "a" } } },
    ];
    const streams = new Map([
      ["/ok?watch=1", stream(200, events)],
      ["/bad?x=1&watch=1", stream(400, [], '{"kind":"Status","code":400}')],
    ]);
    const { connection, watched } = fake(
      () => json(200, {}),
      (path) => streams.get(path) ?? stream(500, []),
    );
    const outcomes = await run(connection, {
      name: "s",
      steps: [
        watch("open", "w", "/ok"),
        watch("open-bad", "b", "/bad?x=1"),
        collect("events", "w", 2),
        collect("error", "b", 1),
      ],
    });
    expect(watched).toEqual(["/ok?watch=1", "/bad?x=1&watch=1"]);
    expect(outcomes.map((o) => [o.interaction, o.status, o.body])).toEqual([
      ["s/open", 200, ""],
      ["s/open-bad", 400, ""],
      ["s/events", 200, events],
      ["s/error", 400, { kind: "Status", code: 400 }],
    ]);
    expect([...streams.values()].every((s) => s.isClosed())).toBe(true);
  });

  it("reports a collect of a watch that was never opened", async () => {
    const { connection } = fake(() => json(200, {}));
    const [outcome] = await run(connection, { name: "s", steps: [collect("c", "nope", 1)] });
    expect([outcome?.status, outcome?.body]).toEqual([0, "no watch named nope is open"]);
  });
});
