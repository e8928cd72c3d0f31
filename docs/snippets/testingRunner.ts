/** docs/guide/testing.md: an operator test through the `kopf run` command line (a vitest test file). */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cli } from "@kopf/cli";
import { KopfRunner } from "@kopf/testing";
import { expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));

it("stores the handler's result in the status", async () => {
  await using runner = await KopfRunner.start({
    args: ["run", join(here, "../src/handlers.ts"), "-n", "default", "--standalone"],
    cli: Cli.main,
  });
  await runner.apply(join(here, "../../crd.yaml"));
  await runner.apply({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "ex1", namespace: "default" },
    spec: { field: "value" },
  });
  const body = await runner.waitFor(KopfRunner.kopfExamples, "ex1", "default", (b) => b?.status?.create_fn);
  expect(body?.status?.create_fn).toEqual({ message: "hello world" });

  await runner.stop(); // graceful: running handlers finish, cleanup handlers run
  expect(runner.exitCode).toBe(0);
  expect(runner.exception).toBeUndefined();
  expect(runner.output).toContain("[default/ex1] Handler 'create_fn' succeeded.");
});
