import { Effect } from "effect";
import { KubeEmulator } from "../../../src/emulator/api/Emulator.ts";
import { request, run } from "./Harness.ts";

await run(
  Effect.gen(function* () {
    const kube = yield* KubeEmulator;
    const N = 5000;
    for (let i = 0; i < N; i++)
      yield* kube.handle(
        request("POST", "/api/v1/namespaces/default/configmaps", {
          metadata: { name: `c${i}`, labels: { a: "b" } },
          data: { k: "v" },
        }),
      );
    const t = performance.now();
    for (let r = 0; r < 4; r++)
      for (let i = 0; i < N; i++)
        yield* kube.handle(
          request(
            "PATCH",
            `/api/v1/namespaces/default/configmaps/c${i}`,
            { data: { k: `w${r}` } },
            { "content-type": "application/merge-patch+json" },
          ),
        );
    console.log("patches/s", (4 * N) / ((performance.now() - t) / 1000));
  }),
);
