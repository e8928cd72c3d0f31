/**
 * Every patch type on ConfigMaps: JSON merge, JSON patch (including failing `test` operations,
 * bad paths, and the library's quirks: negative indices, copying a missing key, replacing the root
 * with a scalar), strategic merge, server-side apply with field managers, conflicts and force (and
 * the first apply to an object whose fields nobody tracked yet), managedFields written by a client
 * (renamed, undecodable, reset), and
 * the errors for malformed patches, unknown media types, missing objects and finalizer names a
 * core kind rejects.
 */
import type { Sequence } from "../Interaction.ts";
import {
  APPLY,
  cms,
  configMap,
  del,
  JSON_PATCH,
  MERGE,
  namespace,
  patch,
  post,
  raw,
  rvOf,
  STRATEGIC,
} from "./internal/steps.ts";

/** The patches sequence. */
export const sequence = (run: string): Sequence => {
  const ns = `c-patch-${run}`;
  const one = cms(ns, "one");
  const applied = (data: Record<string, string>, labels: Record<string, string> = {}) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "ssa", labels },
    data,
  });
  return {
    name: "patches",
    steps: [
      post("namespace", "/api/v1/namespaces", namespace(ns)),
      post("create", cms(ns), configMap("one", { a: "1", b: "2" }, { labels: { x: "1" }, finalizers: [] })),
      post(
        "create-unqualified-finalizer",
        cms(ns),
        configMap("fin", {}, { finalizers: ["a", "example.com/ok"] }),
      ),
      patch("merge-add-label", one, MERGE, { metadata: { labels: { y: "2" } } }),
      patch("merge-remove-label", one, MERGE, { metadata: { labels: { x: null } } }),
      patch("merge-replace-data", one, MERGE, { data: { a: "10", c: "3" } }),
      patch("merge-null-data-key", one, MERGE, { data: { c: null } }),
      patch("merge-with-rv", one, MERGE, { metadata: { resourceVersion: "1" }, data: { a: "x" } }),
      patch("merge-with-current-rv", one, MERGE, undefined, {
        bodyFrom: (e) => ({
          metadata: { resourceVersion: rvOf(e, "merge-null-data-key") },
          data: { d: "4" },
        }),
      }),
      patch("merge-rename", one, MERGE, { metadata: { name: "renamed" } }),
      patch("merge-not-an-object", one, MERGE, ["a"]),
      raw("merge-malformed", "PATCH", one, "{not json", MERGE),
      patch("json-add", one, JSON_PATCH, [{ op: "add", path: "/data/e", value: "5" }]),
      patch("json-replace", one, JSON_PATCH, [{ op: "replace", path: "/data/a", value: "11" }]),
      patch("json-remove", one, JSON_PATCH, [{ op: "remove", path: "/data/e" }]),
      patch("json-test-pass", one, JSON_PATCH, [
        { op: "test", path: "/data/a", value: "11" },
        { op: "replace", path: "/data/a", value: "12" },
      ]),
      patch("json-test-fail", one, JSON_PATCH, [
        { op: "test", path: "/data/a", value: "999" },
        { op: "replace", path: "/data/a", value: "13" },
      ]),
      patch("json-remove-missing", one, JSON_PATCH, [{ op: "remove", path: "/data/nothing" }]),
      patch("json-replace-missing", one, JSON_PATCH, [{ op: "replace", path: "/data/nothing", value: "x" }]),
      patch("json-add-label-escaped", one, JSON_PATCH, [
        { op: "add", path: "/metadata/labels/example.com~1role", value: "worker" },
      ]),
      patch("json-move", one, JSON_PATCH, [{ op: "move", from: "/data/b", path: "/data/moved" }]),
      patch("json-copy", one, JSON_PATCH, [{ op: "copy", from: "/data/a", path: "/data/copied" }]),
      patch("json-bad-op", one, JSON_PATCH, [{ op: "frobnicate", path: "/data/a" }]),
      patch("json-not-a-list", one, JSON_PATCH, { op: "add", path: "/data/a", value: "1" }),
      raw("json-malformed", "PATCH", one, "[{", JSON_PATCH),
      patch("json-test-rv", one, JSON_PATCH, [{ op: "test", path: "/metadata/resourceVersion", value: "1" }]),
      patch("strategic-labels", one, STRATEGIC, { metadata: { labels: { z: "3" } } }),
      patch("strategic-delete-key", one, STRATEGIC, { data: { a: null } }),
      patch("strategic-finalizers", one, STRATEGIC, { metadata: { finalizers: ["example.com/a"] } }),
      patch("strategic-finalizers-merge", one, STRATEGIC, { metadata: { finalizers: ["example.com/b"] } }),
      patch("merge-finalizers-replace", one, MERGE, { metadata: { finalizers: [] } }),
      patch("merge-unqualified-finalizer", one, MERGE, { metadata: { finalizers: ["a"] } }),
      // evanphx/json-patch v4 (kube-apiserver's) counts negative indices from the end.
      patch("json-add-negative-index", one, JSON_PATCH, [
        { op: "add", path: "/metadata/finalizers", value: ["example.com/a", "example.com/b"] },
        { op: "add", path: "/metadata/finalizers/-1", value: "example.com/c" },
      ]),
      patch("json-remove-negative-index", one, JSON_PATCH, [
        { op: "remove", path: "/metadata/finalizers/-1" },
      ]),
      patch("json-index-out-of-range", one, JSON_PATCH, [
        { op: "add", path: "/metadata/finalizers/5", value: "example.com/z" },
      ]),
      patch("json-remove-finalizers", one, JSON_PATCH, [{ op: "remove", path: "/metadata/finalizers" }]),
      patch("json-copy-missing-key", one, JSON_PATCH, [
        { op: "copy", from: "/data/nothing", path: "/data/from-nothing" },
      ]),
      patch("json-replace-root-scalar", one, JSON_PATCH, [{ op: "replace", path: "", value: 5 }]),
      patch("unknown-media-type", one, "application/x-something", { data: {} }),
      patch("missing-object", cms(ns, "absent"), MERGE, { data: { a: "1" } }),
      patch(
        "apply-create",
        `${cms(ns, "ssa")}?fieldManager=alice`,
        APPLY,
        applied({ a: "1" }, { who: "alice" }),
      ),
      patch("apply-update-same-manager", `${cms(ns, "ssa")}?fieldManager=alice`, APPLY, applied({ a: "2" })),
      patch("apply-conflict", `${cms(ns, "ssa")}?fieldManager=bob`, APPLY, applied({ a: "3" })),
      patch("apply-force", `${cms(ns, "ssa")}?fieldManager=bob&force=true`, APPLY, applied({ a: "3" })),
      patch("apply-shared-field", `${cms(ns, "ssa")}?fieldManager=carol`, APPLY, applied({ b: "1" })),
      patch("apply-without-manager", cms(ns, "ssa"), APPLY, applied({ a: "4" })),
      patch("apply-wrong-name", `${cms(ns, "ssa")}?fieldManager=alice`, APPLY, {
        ...applied({}),
        metadata: { name: "other" },
      }),
      patch("apply-no-kind", `${cms(ns, "ssa")}?fieldManager=alice`, APPLY, {
        apiVersion: "v1",
        metadata: { name: "ssa" },
      }),
      raw("apply-malformed", "PATCH", `${cms(ns, "ssa")}?fieldManager=alice`, "{{{", APPLY),
      patch("merge-after-apply", `${cms(ns, "ssa")}?fieldManager=dave`, MERGE, { data: { d: "1" } }),
      patch("dry-run-patch", `${one}?dryRun=All`, MERGE, { data: { dry: "yes" } }),
      post("create-resettable", cms(ns), configMap("resettable")),
      post("create-resettable-2", cms(ns), configMap("resettable-2")),
      patch("managed-fields-rename", cms(ns, "resettable"), JSON_PATCH, [
        { op: "replace", path: "/metadata/managedFields/0/manager", value: "renamed" },
      ]),
      patch("managed-fields-undecodable", cms(ns, "resettable"), JSON_PATCH, [
        { op: "replace", path: "/metadata/managedFields/0/fieldsType", value: "Bogus" },
      ]),
      patch("managed-fields-reset-empty", cms(ns, "resettable"), MERGE, { metadata: { managedFields: [] } }),
      patch("managed-fields-reset-entry", cms(ns, "resettable-2"), MERGE, {
        metadata: { managedFields: [{}] },
        data: { z: "1" },
      }),
      post("create-untracked", cms(ns), {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "untracked" },
      }),
      patch("untracked-merge", cms(ns, "untracked"), MERGE, { data: { b: "1" } }),
      patch("untracked-first-apply", `${cms(ns, "untracked")}?fieldManager=x`, APPLY, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "untracked" },
        data: { c: "2" },
      }),
      del("cleanup", `/api/v1/namespaces/${ns}`),
    ],
  };
};
