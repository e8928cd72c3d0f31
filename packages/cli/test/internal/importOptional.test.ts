/** Importing an optional package: a missing one is named with how to install it; other failures pass. */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { describe, expect, it } from "vitest";
import { importOptional } from "../../src/internal/importOptional.ts";

const failure = async (effect: Effect.Effect<unknown, Error>) => {
  const exit = await Effect.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) throw new Error("expected a failure");
  return Exit.isFailure(exit) ? String(exit.cause) : "";
};

describe("importOptional", () => {
  it("names the missing package and how to install it", async () => {
    const message = await failure(
      importOptional(["@kopf/no-such-package"], () => import(["@kopf", "no-such-package"].join("/"))),
    );
    expect(message).toContain(
      "this needs the package @kopf/no-such-package, a development dependency: npm install --save-dev @kopf/no-such-package",
    );
  });

  it("passes other failures on as they are", async () => {
    const message = await failure(
      importOptional(["@kopf/testing"], () => Promise.reject(new Error("syntax"))),
    );
    expect(message).toContain("syntax");
    expect(message).not.toContain("npm install");
  });

  it("answers the module", async () => {
    const module = await Effect.runPromise(importOptional(["effect/Effect"], () => import("effect/Effect")));
    expect(typeof module.succeed).toBe("function");
  });
});
