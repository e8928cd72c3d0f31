#!/usr/bin/env bash
# `npm run demo`: the whole thing on a fresh machine, with no cluster. Installs the toolchain
# (scripts/bootstrap.sh), starts the Kubernetes API emulator over HTTPS with the example CRD,
# runs the minimal example operator (examples/01-minimal) with `kopf run`, creates the example
# object, shows the handler's log lines and the object's resulting status and annotations, stops
# the operator gracefully (SIGTERM, exit code 0) and the emulator, and exits 0.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/node_modules/.bin:$PATH"
KOPF=(node "$ROOT/packages/cli/bin/kopf.js")
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kopf-demo.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
wait_for() { # file, pattern, seconds, what
  local deadline=$((SECONDS + $3))
  until grep -q -- "$2" "$1" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "demo: timed out waiting for $4; its output:" >&2
      cat "$1" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
}

step "node $(node --version); starting the Kubernetes API emulator (HTTPS) with examples/crd.yaml"
"${KOPF[@]}" emulator --kubeconfig "$WORK/kubeconfig" --crd examples/crd.yaml >"$WORK/emulator.log" 2>&1 &
PIDS+=($!)
wait_for "$WORK/emulator.log" "kubeconfig written" 30 "the emulator"
cat "$WORK/emulator.log"
export KUBECONFIG="$WORK/kubeconfig"

step "kopf run -n default --standalone examples/01-minimal/src/handlers.ts"
sed -n '/^import/,$p' examples/01-minimal/src/handlers.ts
"${KOPF[@]}" run -n default --standalone examples/01-minimal/src/handlers.ts >"$WORK/operator.log" 2>&1 &
OPERATOR=$!
PIDS+=("$OPERATOR")

step "creating the example object (examples/obj.yaml) and waiting for it to be handled"
# A small client over the same kubeconfig: create the object, wait for the handler's result.
export DEMO_OBJECT="$WORK/object.json"
(cd packages/cli && node --conditions=@kopf/source --input-type=module -e '
import { KubeApi, KubeClient } from "@kopf/client";
import { EmulatorCommand } from "@kopf/emulator";
import { KopfRunner } from "@kopf/testing";
import { Effect, References } from "effect";
const [kubeconfig, objPath] = process.argv.slice(1);
const where = { name: "kopf-example-1", namespace: "default" };
const program = Effect.gen(function* () {
  const api = yield* KubeApi;
  const [obj] = yield* EmulatorCommand.readObjects(objPath);
  yield* api.create(KopfRunner.kopfExamples, obj, { namespace: "default" });
  console.log("created kopfexamples/kopf-example-1 in namespace default");
  for (let i = 0; i < 300; i++) {
    const body = yield* api.get(KopfRunner.kopfExamples, where);
    // Handled: the result in the status and the mark saying so (written after the result).
    const marked = body.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] !== undefined;
    if (body.status?.create_fn !== undefined && marked) return body;
    yield* Effect.sleep("100 millis");
  }
  return yield* Effect.fail(new Error("the object was not handled within 30 seconds"));
});
const body = await Effect.runPromise(program.pipe(Effect.provide(KubeClient.layer({ kubeconfig: { paths: kubeconfig } })), Effect.provideService(References.MinimumLogLevel, "Warn")));
const { writeFileSync } = await import("node:fs");
writeFileSync(process.env.DEMO_OBJECT, JSON.stringify({ status: body.status, annotations: body.metadata.annotations }, null, 2) + "\n");
' "$KUBECONFIG" "$ROOT/examples/obj.yaml") 2>&1 | sed 's/^/  /' || { echo "demo: the client failed; the operator said:" >&2; cat "$WORK/operator.log" >&2; exit 1; }

step "stopping the operator gracefully (SIGTERM)"
kill -TERM "$OPERATOR"
set +e
wait "$OPERATOR"
CODE=$?
set -e
PIDS=("${PIDS[@]/$OPERATOR/}")
echo "kopf run exited with code $CODE"

step "the operator's log"
cat "$WORK/operator.log"

step "the handler's log lines"
grep -E "And here we are|Handler 'create_fn'" "$WORK/operator.log"

step "the object's status and annotations"
cat "$DEMO_OBJECT"

[ "$CODE" -eq 0 ] || { echo "demo: kopf run exited with $CODE" >&2; exit 1; }
step "done: no cluster was harmed"
