/**
 * What admission handlers see of the API server's requests, on the selected cluster (the
 * emulator, or a real kube-apiserver on the real tier): for a dry-run create, a create, a merge
 * patch of the spec, a patch of the status subresource and a delete, the handlers get the
 * operation, the dry-run flag, the subresource, the old and new objects (the new one as the
 * mutating webhook left it), the change of the spec, the user and the API server's headers; a
 * dry run is answered with the mutation but stores nothing; a handler for any subresource (`*`)
 * sees the main resource too; and a mutating handler is not called for a delete (a patch there
 * would be refused by the API server).
 */
import { assert, describe, it } from "@effect/vitest";
import { AdmissionError, Registry } from "@kopf/registry";
import { OperatorSettings, Settings } from "@kopf/settings";
import { Json } from "@kopf/structs";
import * as Effect from "effect/Effect";
import { Admission, WebhookServer } from "../../src/index.ts";
import {
  cluster,
  collection,
  create,
  object,
  removedAtEnd,
  send,
  setUp,
  untilCalled,
} from "../fixtures/cluster.ts";
import { SPEC } from "../fixtures/reviews.ts";

const NS = "adm-requests";
const MANAGED = "requests.kopf.dev";
const MERGE = "application/merge-patch+json";

/** What one handler saw of one request. */
interface Seen {
  readonly handler: string;
  readonly operation: string;
  readonly dryrun: boolean;
  readonly subresource: string | undefined;
  readonly old: unknown;
  readonly new: unknown;
  /** The diff's changes of the spec, or of the whole object (path ""), as [op, path]. */
  readonly specDiff: unknown;
}

const registry = (seen: Array<Seen>, users: Array<unknown>, agents: Array<unknown>, any: Array<string>) => {
  const r = Registry.make();
  const record =
    (handler: string) =>
    ({ name, operation, dryrun, subresource, old, new: body, diff, userinfo, headers }: any) => {
      if (String(name).startsWith("probe")) return;
      seen.push({
        handler,
        operation,
        dryrun,
        subresource,
        old: old?.spec,
        new: handler === "status" ? body?.status : body?.spec,
        specDiff: [...diff]
          .filter((d: any) => d.field.length === 0 || d.field[0] === "spec")
          .map((d: any) => [d.op, d.field.join(".")]),
      });
      users.push(userinfo);
      agents.push(headers["user-agent"]);
    };
  r.on.validate(SPEC, { id: "record" }, record("record"));
  r.on.validate(SPEC, { id: "status", subresource: "status" }, record("status"));
  // Its webhook's rule is `kopfexamples/*`: the main resource and every subresource.
  r.on.validate(SPEC, { id: "any", subresource: "*" }, ({ name, operation, subresource, dryrun }: any) => {
    if (!String(name).startsWith("probe"))
      any.push(`${operation} ${subresource ?? "-"}${dryrun === true ? " (dry run)" : ""}`);
  });
  r.on.validate(SPEC, { id: "gate" }, ({ spec }: any) => {
    if (spec?.probe === true) throw new AdmissionError("Probes are refused.", { code: 418 });
  });
  r.on.mutate(SPEC, { id: "stamp" }, ({ operation, patch }: any) => {
    patch.spec.stamped = operation;
  });
  return r;
};

/**
 * The calls that decided each request: a real kube-apiserver may run an update's admission twice.
 * It starts the update from its watch cache's copy of the object, which can still be the version
 * before the previous request's write; the write then conflicts, and the update is tried again
 * from storage, webhooks included (the first call saw the stale old object). Consecutive calls
 * for the same request (the same handler, operation, dry-run flag, subresource and new object)
 * are the attempts of one request: the last one is the one stored.
 */
const lastAttempts = <A>(calls: ReadonlyArray<A>, request: (call: A) => unknown): Array<A> =>
  calls.filter(
    (call, i) => i === calls.length - 1 || !Json.deepEqual(request(call), request(calls[i + 1] as A)),
  );

describe("admission requests", () => {
  it.live("handlers see each operation as the API server describes it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        yield* setUp(NS);
        yield* removedAtEnd(MANAGED);
        const seen: Array<Seen> = [];
        const users: Array<unknown> = [];
        const agents: Array<unknown> = [];
        const any: Array<string> = [];
        const settings = Settings.make({
          admission: { server: WebhookServer.WebhookServer({ addr: "127.0.0.1" }), managed: MANAGED },
        } as Settings.Overrides);
        assert.strictEqual(settings._tag, "Success");
        if (settings._tag !== "Success") return;
        yield* Effect.forkScoped(
          Admission.run({ registry: registry(seen, users, agents, any) }).pipe(
            Effect.provideService(OperatorSettings, settings.success),
          ),
        );
        const path = collection(NS);
        yield* untilCalled(
          create(path, object(NS, "probe-v", { probe: true }), { dryRun: true }),
          (a) => a.status === 418,
        );
        yield* untilCalled(
          create(path, object(NS, "probe-m", {}), { dryRun: true }),
          (a) => a.status === 201 && a.body.spec?.stamped === "CREATE",
        );

        const dry = yield* create(path, object(NS, "obj", { a: 1 }), { dryRun: true });
        assert.strictEqual(dry.status, 201);
        assert.deepStrictEqual(dry.body.spec, { a: 1, stamped: "CREATE" });
        const absent = yield* send("GET", `${path}/obj`);
        assert.strictEqual(absent.status, 404);

        assert.strictEqual((yield* create(path, object(NS, "obj", { a: 1 }))).status, 201);
        const patched = yield* send("PATCH", `${path}/obj`, { spec: { a: 2 } }, MERGE);
        assert.strictEqual(patched.status, 200);
        assert.deepStrictEqual(patched.body.spec, { a: 2, stamped: "UPDATE" });
        const status = yield* send("PATCH", `${path}/obj/status`, { status: { phase: "ready" } }, MERGE);
        assert.strictEqual(status.status, 200);
        assert.deepStrictEqual(status.body.status, { phase: "ready" });
        const deleted = yield* send("DELETE", `${path}/obj`);
        assert.strictEqual(deleted.status, 200);

        const created = { a: 1, stamped: "CREATE" };
        const updated = { a: 2, stamped: "UPDATE" };
        const decided = lastAttempts(seen, ({ old: _old, specDiff: _diff, ...request }) => request);
        assert.deepStrictEqual(decided, [
          {
            handler: "record",
            operation: "CREATE",
            dryrun: true,
            subresource: undefined,
            old: undefined,
            new: created,
            specDiff: [["add", ""]],
          },
          {
            handler: "record",
            operation: "CREATE",
            dryrun: false,
            subresource: undefined,
            old: undefined,
            new: created,
            specDiff: [["add", ""]],
          },
          {
            handler: "record",
            operation: "UPDATE",
            dryrun: false,
            subresource: undefined,
            old: created,
            new: updated,
            specDiff: [
              ["change", "spec.a"],
              ["change", "spec.stamped"],
            ],
          },
          {
            handler: "status",
            operation: "UPDATE",
            dryrun: false,
            subresource: "status",
            old: updated,
            new: { phase: "ready" },
            specDiff: [],
          },
          {
            handler: "record",
            operation: "DELETE",
            dryrun: false,
            subresource: undefined,
            old: updated,
            new: undefined,
            specDiff: [["remove", ""]],
          },
        ]);
        assert.deepStrictEqual(
          lastAttempts(any, (call) => call),
          ["CREATE - (dry run)", "CREATE -", "UPDATE -", "UPDATE status", "DELETE -"],
        );
        // The requester, as the API server authenticated it; the API server's admission client.
        for (const user of users) {
          assert.isString((user as any).username);
          assert.notStrictEqual((user as any).username, "");
          assert.include((user as any).groups, "system:authenticated");
        }
        assert.deepStrictEqual(new Set(agents), new Set(["kube-apiserver-admission"]));
      }),
    ).pipe(Effect.provide(cluster())),
  );
});
