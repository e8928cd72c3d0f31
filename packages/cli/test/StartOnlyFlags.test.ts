/**
 * The restart of `kopf run` with a flag V8 reads only at start: when it happens (and with what
 * command line and environment) and when the user's choices, a debugger or the Node.js at hand
 * rule it out. The restart of a real `kopf run` process is in main.test.ts.
 */
import { describe, expect, it } from "vitest";
import * as StartOnlyFlags from "../src/StartOnlyFlags.ts";

const args = ["/app/node_modules/@kopf/cli/bin/kopf.js", "run", "-A", "handlers.js"];

describe("StartOnlyFlags.plan", () => {
  it.each([
    {
      name: "plain start: the flag first, then Node's options and the command line as given",
      execArgv: ["--enable-source-maps"],
      env: { HOME: "/home/op", UNSET: undefined },
      canReplace: true,
      replacement: {
        args: ["--no-concurrent-recompilation", "--enable-source-maps", ...args],
        env: { HOME: "/home/op" },
      },
    },
    {
      name: "NODE_OPTIONS goes along in the environment, not onto the command line",
      execArgv: [],
      env: { NODE_OPTIONS: "--max-old-space-size=512" },
      canReplace: true,
      replacement: {
        args: ["--no-concurrent-recompilation", ...args],
        env: { NODE_OPTIONS: "--max-old-space-size=512" },
      },
    },
    {
      name: "already started with the flag (the replaced process itself): runs on",
      execArgv: ["--no-concurrent-recompilation"],
      env: {},
      canReplace: true,
      replacement: undefined,
    },
    {
      name: "the user chose concurrent recompilation: runs on",
      execArgv: ["--concurrent-recompilation"],
      env: {},
      canReplace: true,
      replacement: undefined,
    },
    {
      name: "the same choice written with underscores",
      execArgv: ["--concurrent_recompilation=true"],
      env: {},
      canReplace: true,
      replacement: undefined,
    },
    {
      name: "a debugger on the command line: runs on",
      execArgv: ["--inspect-brk=0.0.0.0:9229"],
      env: {},
      canReplace: true,
      replacement: undefined,
    },
    {
      name: "a debugger in NODE_OPTIONS: runs on",
      execArgv: [],
      env: { NODE_OPTIONS: "--inspect" },
      canReplace: true,
      replacement: undefined,
    },
    {
      name: "KOPF_HEAP_TUNING=off: V8's defaults",
      execArgv: [],
      env: { KOPF_HEAP_TUNING: "off" },
      canReplace: true,
      replacement: undefined,
    },
    {
      name: "a Node.js without process.execve: runs on",
      execArgv: [],
      env: {},
      canReplace: false,
      replacement: undefined,
    },
  ])("$name", ({ execArgv, env, canReplace, replacement }) => {
    expect(StartOnlyFlags.plan({ execArgv, args, env, canReplace })).toEqual(replacement);
  });

  it("the replacement does not plan another one", () => {
    const first = StartOnlyFlags.plan({ execArgv: [], args, env: {}, canReplace: true });
    expect(first).toBeDefined();
    const [flag, ...rest] = first?.args ?? [];
    expect(flag).toBe(StartOnlyFlags.FLAG);
    expect(rest).toEqual(args);
    expect(
      StartOnlyFlags.plan({ execArgv: [flag ?? ""], args: rest, env: {}, canReplace: true }),
    ).toBeUndefined();
  });
});
