/** Test harness: a fresh emulator per test and helpers that drive `handle` and decode answers. */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Stream from "effect/Stream";
import { TestClock } from "effect/testing";
import {
  type ApiRequest,
  type ApiResponse,
  type EmulatorOptions,
  KubeEmulator,
} from "../../src/api/Emulator.ts";

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: any;
  readonly text: string;
}

export const USER = { username: "tester", groups: ["system:authenticated"] };

export const request = (
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): ApiRequest => {
  const [path, search] = url.split("?");
  const raw =
    body === undefined
      ? undefined
      : body instanceof Uint8Array
        ? body
        : new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
  return {
    method,
    path: path ?? "/",
    query: new URLSearchParams(search ?? ""),
    headers: { "content-type": "application/json", ...headers },
    body: raw,
    user: USER,
  };
};

export const decode = (response: ApiResponse): Answer => {
  if (response._tag !== "Complete") throw new Error("expected a complete response");
  const text = new TextDecoder().decode(response.body);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
};

/** Sends a request and decodes the (complete) answer. */
export const send = (method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
  Effect.gen(function* () {
    const kube = yield* KubeEmulator;
    return decode(yield* kube.handle(request(method, url, body, headers)));
  });

/** Opens a watch and collects the first `n` events. */
export const watch = (url: string, n: number) =>
  Effect.gen(function* () {
    const kube = yield* KubeEmulator;
    const response = yield* kube.handle(request("GET", url));
    if (response._tag !== "Streaming") return { status: response.status, events: [] as Array<any>, response };
    const chunks = yield* Stream.runCollect(Stream.take(response.body, n));
    const events = [...chunks].map((c) => JSON.parse(new TextDecoder().decode(c)));
    return { status: response.status, events, response };
  });

/**
 * Runs `effect` against a fresh emulator. The namespace controllers (the `default`
 * ServiceAccount and `kube-root-ca.crt` in every namespace) are off unless `options` turn them
 * on, so that lists and watches hold only what a test wrote.
 */
export const run = <A, E>(
  effect: Effect.Effect<A, E, KubeEmulator>,
  options: EmulatorOptions = {},
): Promise<A> => Effect.runPromise(withEmulator(effect, options));

/** As {@link run}, with the `TestClock` as the emulator's and the test's clock. */
export const runOnTestClock = <A, E>(
  effect: Effect.Effect<A, E, KubeEmulator>,
  options: EmulatorOptions = {},
): Promise<A> => Effect.runPromise(withEmulator(effect, options).pipe(Effect.provide(TestClock.layer())));

const withEmulator = <A, E>(effect: Effect.Effect<A, E, KubeEmulator>, options: EmulatorOptions) =>
  Effect.scoped(
    Layer.build(KubeEmulator.layer({ namespaceControllers: false, ...options })).pipe(
      Effect.flatMap((ctx) => Effect.provide(effect, ctx)),
    ),
  );

export const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...extra },
  data: { a: "1" },
});

/** A namespaced CRD (kopfexamples.kopf.dev) that preserves unknown fields, with a status subresource. */
export const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "kopfexamples.kopf.dev" },
  spec: {
    group: "kopf.dev",
    scope: "Namespaced",
    names: {
      plural: "kopfexamples",
      singular: "kopfexample",
      kind: "KopfExample",
      shortNames: ["kex"],
      categories: ["all"],
    },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};
