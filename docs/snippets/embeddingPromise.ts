/** docs/guide/embedding.md: the Promise API (`kopf.run`, `kopf.operator`). */
import * as kopf from "kopf";
import "./handlers.ts";

// block: main.ts
async function main(): Promise<void> {
  const controller = new AbortController();
  process.once("SIGTERM", () => controller.abort());
  process.once("SIGINT", () => controller.abort());
  kopf.configure({ format: "json", level: "Info" });
  await kopf.run({ namespaces: ["default"], signal: controller.signal });
}

if (import.meta.main) await main();

// block: in the background
export async function withOperator(work: () => Promise<void>): Promise<void> {
  await using operator = kopf.operator({ namespaces: ["default"], memo: { greeting: "hello" } });
  await operator.ready; // startup handlers done; objects are being handled
  await work();
} // leaving the block stops the operator gracefully and waits for it
