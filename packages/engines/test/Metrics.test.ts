/**
 * The metrics endpoint end to end: an operator on the emulator handles objects (handlers that
 * succeed, retry and fail for good) while the endpoint is scraped over real HTTP; the output is
 * parsed by Prometheus's own text-format parser (a tiny Go program over
 * `github.com/prometheus/common/expfmt`, built once per run) and the values are checked against
 * what happened: invocations, successes, failures and retries equal the handlers' own counts,
 * histograms are consistent (cumulative buckets, `+Inf` = count), API requests and events
 * posted are counted, process metrics are there, every family has HELP and TYPE. OpenMetrics
 * is served on request. Also: URL parsing and format negotiation, table by table.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, beforeAll, describe, it } from "@effect/vitest";
import { KubeApi } from "@kopf/client";
import { PermanentError, Registry, TemporaryError } from "@kopf/registry";
import { Resource } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import * as Metric from "effect/Metric";
import * as Result from "effect/Result";
import * as MetricsEndpoint from "../src/MetricsEndpoint.ts";
import * as Operating from "../src/Operating.ts";
import * as H from "./fixtures/Harness.ts";

describe("parseEndpoint", () => {
  it.each([
    ["http://0.0.0.0:9090/metrics", { host: "0.0.0.0", port: 9090, path: "/metrics" }],
    ["http://localhost", { host: "localhost", port: 80, path: "/" }],
  ])("%s ⇒ %j", (url, expected) => {
    assert.deepStrictEqual(Result.getOrThrow(MetricsEndpoint.parseEndpoint(url)), expected);
  });
  it.each([
    ["https://localhost:9090/metrics", "UnsupportedScheme"],
    ["nonsense", "InvalidUrl"],
  ])("%s ⇒ %s", (url, reason) => {
    const parsed = MetricsEndpoint.parseEndpoint(url);
    assert.isTrue(Result.isFailure(parsed) && parsed.failure.reason === reason);
  });
});

describe("negotiate", () => {
  it.each([
    [undefined, "prometheus"],
    ["text/plain", "prometheus"],
    ["*/*", "prometheus"],
    ["application/openmetrics-text", "openmetrics"],
    ["application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", "openmetrics"],
    ["application/openmetrics-text;q=0.2,text/plain;q=0.9", "prometheus"],
    ["application/openmetrics-text;q=0", "prometheus"],
    ["application/json", "prometheus"],
  ] as const)("Accept: %s ⇒ %s", (accept, format) => {
    assert.strictEqual(MetricsEndpoint.negotiate(accept), format);
  });
});

describe("respond", () => {
  const endpoint = { host: "localhost", port: 80, path: "/metrics" };
  const render = (format: MetricsEndpoint.Format) => Effect.succeed(`rendered ${format}`);
  it.effect.each([
    ["GET", "/metrics", undefined, 200, "rendered prometheus"],
    ["GET", "/metrics?x=1", "application/openmetrics-text", 200, "rendered openmetrics"],
    ["HEAD", "/metrics", undefined, 200, "rendered prometheus"],
    ["GET", "/other", undefined, 404, "Not Found"],
    ["POST", "/metrics", undefined, 405, "Method Not Allowed"],
  ] as const)("%s %s (Accept %s) ⇒ %d", ([method, path, accept, status, body]) =>
    Effect.gen(function* () {
      const response = yield* MetricsEndpoint.respond({ endpoint, render, method, path, accept });
      assert.strictEqual(response.status, status);
      assert.strictEqual(response.body, body);
    }),
  );
});

/** One metric family as Prometheus's parser reads it. */
interface Family {
  readonly help: string;
  readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  readonly samples: ReadonlyArray<{
    readonly labels: Readonly<Record<string, string>>;
    /** As Go formats them (`NaN`, `+Inf`). */
    readonly value?: string;
    readonly count?: number;
    readonly sum?: string;
    readonly buckets?: Readonly<Record<string, number>>;
  }>;
}
type Families = Readonly<Record<string, Family>>;

const here = dirname(fileURLToPath(import.meta.url));
let checker = "";

beforeAll(() => {
  // Prometheus's own parser, built from the Go module proxy (cached by Go after the first run).
  checker = join(mkdtempSync(join(tmpdir(), "kopf-promcheck-")), "promcheck");
  execFileSync("go", ["build", "-o", checker, "."], {
    cwd: join(here, "fixtures", "promcheck"),
    stdio: "pipe",
  });
}, 300_000);

/** Parses an exposition with Prometheus's parser; fails with the parser's error. */
const parse = (text: string) =>
  Effect.callback<Families, Error>((resume) => {
    const child = execFile(checker, [], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resume(
        error === null ? Effect.succeed(JSON.parse(stdout) as Families) : Effect.fail(new Error(stderr)),
      ),
    );
    child.stdin?.end(text);
  });

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

const scrape = (url: string, accept?: string) =>
  Effect.promise(() =>
    fetch(url, accept === undefined ? {} : { headers: { accept } }).then(async (response) => ({
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      body: await response.text(),
    })),
  );

/** The samples of a family whose labels include `labels`. */
const matching = (families: Families, name: string, labels: Readonly<Record<string, string>>) =>
  (families[name]?.samples ?? []).filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );

const total = (families: Families, name: string, labels: Readonly<Record<string, string>> = {}) =>
  matching(families, name, labels).reduce(
    (sum, sample) => sum + (sample.value === undefined ? (sample.count ?? 0) : Number(sample.value)),
    0,
  );

const events = Resource.make({
  group: "",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
  subresources: [],
  verbs: ["list", "create"],
  preferred: true,
});

const RES = "kopfexamples.v1.kopf.dev";
const OBJECTS = 3;

describe("the endpoint of a running operator", () => {
  it.live(
    "counts what the handlers did, in Prometheus's own parser, with consistent histograms",
    () =>
      H.run(() =>
        Effect.gen(function* () {
          const port = yield* Effect.promise(freePort);
          const url = `http://127.0.0.1:${port}/metrics`;
          const calls = { fine: 0, flaky: 0, broken: 0 };
          const registry = Registry.make();
          registry.on.create(H.RES, function fine() {
            calls.fine += 1;
          });
          registry.on.create(H.RES, function flaky({ retry }) {
            calls.flaky += 1;
            if (retry === 0) throw new TemporaryError("not yet", { delay: 0.1 });
          });
          registry.on.create(H.RES, function broken() {
            calls.broken += 1;
            throw new PermanentError("never");
          });
          registry.on.daemon(H.RES, function monitor({ stopped }) {
            return stopped.wait(600);
          });
          const fiber = yield* Effect.forkScoped(
            Operating.run({ registry, namespaces: ["ns1"], standalone: true, metricsEndpoint: url }),
          );
          for (let i = 0; i < OBJECTS; i++) yield* H.create(`kex${i}`);

          // Until every object is handled (the flaky handler's retry included) and posted.
          const api = yield* KubeApi;
          let posted = 0;
          for (let i = 0; i < 200 && (calls.flaky < 2 * OBJECTS || posted < OBJECTS); i++) {
            yield* Effect.sleep("50 millis");
            posted = (yield* api.list(events, { namespace: "ns1" }).pipe(Effect.orDie)).items.length;
          }
          yield* Effect.sleep("300 millis");

          const scraped = yield* scrape(url);
          assert.strictEqual(scraped.status, 200);
          assert.strictEqual(scraped.contentType, MetricsEndpoint.CONTENT_TYPES.prometheus);
          const families = yield* parse(scraped.body);

          // Every kopf_ family has its HELP and TYPE; the Node process metrics are there too.
          const ours = Object.entries(families).filter(([name]) => name.startsWith("kopf_"));
          assert.isAbove(ours.length, 10);
          for (const [name, family] of ours) {
            assert.notStrictEqual(family.help, "", `${name} has no HELP`);
            assert.isTrue(scraped.body.includes(`# TYPE ${name} `), `${name} has no TYPE`);
          }
          for (const name of [
            "process_cpu_seconds_total",
            "process_resident_memory_bytes",
            "nodejs_eventloop_lag_seconds",
            "nodejs_heap_size_used_bytes",
          ]) {
            assert.isDefined(families[name], name);
          }
          assert.strictEqual(families.kopf_handler_invocations_total?.type, "COUNTER");
          assert.strictEqual(families.kopf_handler_duration_seconds?.type, "HISTOGRAM");

          // Handlers: the counts equal what the handlers saw.
          const of = (handler: string) => ({ resource: RES, handler });
          assert.deepStrictEqual(calls, { fine: OBJECTS, flaky: 2 * OBJECTS, broken: OBJECTS });
          assert.strictEqual(
            total(families, "kopf_handler_invocations_total", { ...of("fine"), reason: "create" }),
            OBJECTS,
          );
          assert.strictEqual(total(families, "kopf_handler_successes_total", of("fine")), OBJECTS);
          assert.strictEqual(total(families, "kopf_handler_failures_total", of("fine")), 0);
          assert.strictEqual(total(families, "kopf_handler_invocations_total", of("flaky")), 2 * OBJECTS);
          assert.strictEqual(total(families, "kopf_handler_retries_total", of("flaky")), OBJECTS);
          assert.strictEqual(total(families, "kopf_handler_successes_total", of("flaky")), OBJECTS);
          assert.strictEqual(
            total(families, "kopf_handler_failures_total", { ...of("flaky"), kind: "temporary" }),
            OBJECTS,
          );
          assert.strictEqual(total(families, "kopf_handler_invocations_total", of("broken")), OBJECTS);
          assert.strictEqual(total(families, "kopf_handler_successes_total", of("broken")), 0);
          assert.strictEqual(
            total(families, "kopf_handler_failures_total", { ...of("broken"), kind: "permanent" }),
            OBJECTS,
          );
          assert.strictEqual(total(families, "kopf_handler_retries_total", of("broken")), 0);

          // Histograms: one observation per invocation, cumulative buckets ending at the count.
          for (const handler of ["fine", "flaky", "broken"]) {
            const [duration] = matching(families, "kopf_handler_duration_seconds", of(handler));
            assert.strictEqual(
              duration?.count,
              total(families, "kopf_handler_invocations_total", of(handler)),
              handler,
            );
          }
          for (const name of Object.keys(families).filter((n) => families[n]?.type === "HISTOGRAM")) {
            for (const sample of families[name]?.samples ?? []) {
              const bounds = Object.entries(sample.buckets ?? {})
                .map(([le, count]) => [le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), count] as const)
                .sort(([a], [b]) => a - b);
              for (let i = 1; i < bounds.length; i++) {
                assert.isAtLeast(bounds[i]?.[1] ?? 0, bounds[i - 1]?.[1] ?? 0, `${name} buckets`);
              }
              assert.strictEqual(bounds.at(-1)?.[0], Number.POSITIVE_INFINITY, `${name} has +Inf`);
              assert.strictEqual(bounds.at(-1)?.[1], sample.count, `${name}: +Inf = count`);
              assert.isAtLeast(Number(sample.sum ?? -1), 0);
            }
          }

          // Processing: a cycle per queued event; handlers started and patches applied after events.
          const cycles = total(families, "kopf_processing_cycles_total", { resource: RES });
          assert.isAtLeast(cycles, OBJECTS);
          assert.strictEqual(
            total(families, "kopf_processing_event_to_handler_seconds", { resource: RES }),
            total(families, "kopf_handler_invocations_total", { resource: RES }),
          );
          assert.isAtLeast(
            total(families, "kopf_processing_event_to_patch_seconds", { resource: RES }),
            OBJECTS,
          );
          assert.strictEqual(total(families, "kopf_objects_known", { resource: RES }), OBJECTS);

          // Daemons: one per object, running; peering is off (standalone).
          assert.strictEqual(
            total(families, "kopf_daemons_running", { ...of("monitor"), kind: "daemon" }),
            OBJECTS,
          );
          assert.strictEqual(
            total(families, "kopf_handler_invocations_total", { ...of("monitor"), reason: "daemon" }),
            OBJECTS,
          );
          assert.strictEqual(total(families, "kopf_peering_paused"), 0);
          assert.strictEqual(total(families, "kopf_queue_events", { resource: RES }), 0);
          // Three objects never wait for a slot: the cycle limit stays the configured one.
          assert.strictEqual(total(families, "kopf_queue_cycle_limit", { resource: RES }), 32);

          // The API: our own creates, the posted Warning events, one latency per attempt.
          assert.strictEqual(
            total(families, "kopf_api_requests_total", { verb: "create", resource: RES, code: "201" }),
            OBJECTS,
          );
          assert.strictEqual(
            total(families, "kopf_api_requests_total", { verb: "create", resource: "events.v1" }),
            OBJECTS,
          );
          assert.isAtLeast(total(families, "kopf_api_requests_total", { verb: "watch", resource: RES }), 1);
          assert.isAtLeast(
            total(families, "kopf_api_requests_total", { verb: "patch", resource: RES }),
            OBJECTS,
          );
          assert.strictEqual(
            total(families, "kopf_api_request_duration_seconds"),
            total(families, "kopf_api_requests_total"),
          );
          assert.isAtLeast(total(families, "kopf_watch_relists_total", { resource: RES }), 1);

          // The permanent failures were posted as Warning events on their objects.
          const posts = (yield* api.list(events, { namespace: "ns1" }).pipe(Effect.orDie)).items;
          const warnings = posts.filter(
            (event) => event.type === "Warning" && event.reason === "HandlerFailed",
          );
          assert.strictEqual(warnings.length, OBJECTS);

          // OpenMetrics on request.
          const open = yield* scrape(url, "application/openmetrics-text;version=1.0.0,text/plain;q=0.5");
          assert.strictEqual(open.contentType, MetricsEndpoint.CONTENT_TYPES.openmetrics);
          assert.isTrue(open.body.endsWith("# EOF\n"));
          assert.isTrue(open.body.includes("# TYPE kopf_handler_invocations counter"));
          assert.isTrue(
            open.body.includes('kopf_handler_invocations_total{resource="kopfexamples.v1.kopf.dev"'),
          );

          yield* Fiber.interrupt(fiber);
        }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
      ),
    60_000,
  );
});

describe("what an operator records", () => {
  // An operator that handles one object, with a metric registry of its own: the series there, as
  // `id verb` (the verb of API requests only), less those of the test's own creating request.
  const recorded = (options: { readonly metricsEndpoint?: string; readonly recordMetrics?: boolean }) => {
    const metrics = new Map<string, Metric.Metric.Metadata<any, any>>();
    return H.run(() =>
      Effect.gen(function* () {
        let handled = 0;
        const registry = Registry.make();
        registry.on.create(H.RES, function fine() {
          handled += 1;
        });
        yield* Effect.forkScoped(
          Operating.run({ registry, namespaces: ["ns1"], standalone: true, ...options }),
        );
        yield* H.create("kex0");
        for (let i = 0; i < 200 && handled === 0; i++) yield* Effect.sleep("50 millis");
        yield* Effect.sleep("300 millis");
        assert.strictEqual(handled, 1);
        return [...metrics.values()]
          .map((entry) => `${entry.id} ${entry.attributes?.verb ?? ""}`.trim())
          .filter((series) => !series.endsWith(" create"));
      }).pipe(Effect.provideService(Metric.MetricRegistry, metrics)),
    );
  };

  it.live("records none without an endpoint: nothing could read them", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* recorded({}), []);
    }),
  );

  it.live("records them with an endpoint, or when told to", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(freePort);
      const served = yield* recorded({ metricsEndpoint: `http://127.0.0.1:${port}/metrics` });
      const asked = yield* recorded({ recordMetrics: true });
      for (const series of [served, asked]) {
        for (const expected of [
          "kopf_processing_cycles_total",
          "kopf_handler_invocations_total",
          "kopf_api_requests_total patch",
          "kopf_watch_events_total",
          "kopf_queue_objects",
        ])
          assert.include(series, expected);
      }
    }),
  );
});
