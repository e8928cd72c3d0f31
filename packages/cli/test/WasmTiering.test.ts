/**
 * WebAssembly on Liftoff in `kopf run`: whether it applies given Node's own options (the user's
 * flags for WebAssembly's compilers win), and — in a separate Node process, since the flags change
 * the whole process — that a hot WebAssembly function stays on Liftoff's code, where V8 on its
 * own recompiles it with TurboFan.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as WasmTiering from "../src/WasmTiering.ts";

const here = dirname(fileURLToPath(import.meta.url));

describe("WasmTiering.plan", () => {
  it.each([
    { execArgv: [], nodeOptions: undefined, liftoffOnly: true },
    { execArgv: ["--enable-source-maps"], nodeOptions: "--max-semi-space-size=16", liftoffOnly: true },
    { execArgv: ["--no-liftoff"], nodeOptions: undefined, liftoffOnly: false },
    { execArgv: [], nodeOptions: "--wasm-tier-up", liftoffOnly: false },
    { execArgv: ["--wasm_dynamic_tiering=false"], nodeOptions: undefined, liftoffOnly: false },
    { execArgv: [], nodeOptions: " --liftoff-only ", liftoffOnly: false },
    { execArgv: ["--no-wasm-lazy-compilation"], nodeOptions: undefined, liftoffOnly: false },
  ])("$execArgv / $nodeOptions → $liftoffOnly", ({ execArgv, nodeOptions, liftoffOnly }) => {
    expect(WasmTiering.plan(execArgv, nodeOptions)).toBe(liftoffOnly);
  });
});

describe("WasmTiering.apply in a Node process", () => {
  const compiled = (mode: "liftoff" | "default"): { liftoff: boolean; turbofan: boolean } =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ["--allow-natives-syntax", join(here, "fixtures/wasm-tiering.ts"), mode],
        {
          encoding: "utf8",
          timeout: 60_000,
        },
      ),
    );

  it("keeps a hot WebAssembly function on Liftoff; V8 on its own tiers it up to TurboFan", () => {
    expect(compiled("default")).toMatchObject({ liftoff: false, turbofan: true });
    expect(compiled("liftoff")).toMatchObject({ liftoff: true, turbofan: false });
  });
});
