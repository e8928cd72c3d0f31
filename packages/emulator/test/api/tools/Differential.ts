/**
 * Differential check of the emulator core against a real kube-apiserver: runs the same request
 * script on both and prints every difference in status code or (normalized) body.
 * Run: node --conditions=@kopf/source Differential.ts <kubeconfig of a real apiserver> [filter]
 */
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as YAML from "yaml";
import { type ApiRequest, KubeEmulator } from "../../../src/api/Emulator.ts";
import { SCENARIO, type Step } from "./DifferentialScenario.ts";

const kubeconfig = YAML.parse(readFileSync(process.argv[2] ?? "", "utf8"));
const cluster = kubeconfig.clusters[0].cluster;
const token = kubeconfig.users[0].user.token as string;
const ca = Buffer.from(cluster["certificate-authority-data"], "base64");
const server = new URL(cluster.server);
const filter = process.argv[3];

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

const real = (step: Step): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const body =
      step.body === undefined
        ? undefined
        : typeof step.body === "string"
          ? step.body
          : JSON.stringify(step.body);
    const req = httpsRequest(
      {
        host: server.hostname,
        port: server.port,
        method: step.method,
        path: step.path,
        ca,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": step.contentType ?? "application/json",
          accept: step.accept ?? "application/json",
          ...(body === undefined ? {} : { "content-length": Buffer.byteLength(body) }),
        },
      },
      (res) => {
        const chunks: Array<Buffer> = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });

const emulated = (kube: KubeEmulator["Service"], step: Step) =>
  Effect.gen(function* () {
    const [path, search] = step.path.split("?");
    const body =
      step.body === undefined
        ? undefined
        : typeof step.body === "string"
          ? step.body
          : JSON.stringify(step.body);
    const req: ApiRequest = {
      method: step.method,
      path: path ?? "/",
      query: new URLSearchParams(search ?? ""),
      headers: {
        "content-type": step.contentType ?? "application/json",
        accept: step.accept ?? "application/json",
      },
      body: body === undefined ? undefined : new TextEncoder().encode(body),
      user: { username: "admin", groups: ["system:masters"] },
    };
    const res = yield* kube.handle(req);
    if (res._tag !== "Complete") return { status: res.status, body: "<stream>" } satisfies Answer;
    const text = new TextDecoder().decode(res.body);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed } satisfies Answer;
  });

/** Replaces values that legitimately differ between servers. */
const normalize = (value: unknown, key = ""): unknown => {
  if (Array.isArray(value)) return value.map((v) => normalize(v));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalize(v, k);
    return out;
  }
  if (typeof value === "string") {
    if (
      [
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "deletionTimestamp",
        "time",
        "lastTransitionTime",
        "clusterIP",
        "continue",
      ].includes(key)
    )
      return `<${key}>`;
    if (key === "clusterIPs") return "<ip>";
    return value
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uid>")
      .replace(/resource version: \d+ \(\d+\)/, "resource version: N (M)")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, "<time>");
  }
  return value;
};

const diff = (a: unknown, b: unknown, path: string, out: Array<string>): void => {
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  if (
    typeof a === "object" &&
    a !== null &&
    typeof b === "object" &&
    b !== null &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys)
      diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (const [i, x] of a.entries()) diff(x, b[i], `${path}[${i}]`, out);
    return;
  }
  out.push(`  ${path}: real=${JSON.stringify(a)?.slice(0, 3000)} emu=${JSON.stringify(b)?.slice(0, 3000)}`);
};

const ns = `diff-${Math.floor(Math.random() * 1e6)}`;
const program = Effect.gen(function* () {
  const kube = yield* KubeEmulator;
  let differences = 0;
  for (const raw of SCENARIO(ns)) {
    const step = raw;
    const r = yield* Effect.promise(() => real(step));
    const e = yield* emulated(kube, step);
    if (step.sleep !== undefined)
      yield* Effect.promise(() => new Promise((res) => setTimeout(res, step.sleep)));
    if (filter !== undefined && !step.name.includes(filter)) continue;
    const lines: Array<string> = [];
    if (r.status !== e.status) lines.push(`  status: real=${r.status} emu=${e.status}`);
    if (!step.statusOnly) diff(normalize(r.body), normalize(e.body), "", lines);
    if (lines.length > 0) {
      differences++;
      console.log(`✗ ${step.name}: ${step.method} ${step.path}\n${lines.join("\n")}`);
    } else console.log(`✓ ${step.name}`);
  }
  console.log(`${differences} steps differ`);
});

await Effect.runPromise(
  Effect.scoped(
    Layer.build(KubeEmulator.layer()).pipe(Effect.flatMap((ctx) => Effect.provide(program, ctx))),
  ),
);
