// scripts/real-apiserver.sh's start: a control plane that exits during startup (as when one of
// the loopback ports it picked was taken before it bound it) is started again with fresh state,
// up to three attempts, and a start that keeps failing leaves no state or directories behind.
// A stand-in program (KOPF_REAL_BINARY) plays the control plane, so no build is needed.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../real-apiserver.sh", import.meta.url));

// Exits like a control plane whose port was taken for the first $FAILS launches, then serves:
// writes its pid, a kubeconfig and the ready marker, and runs until it is stopped.
const standIn = `#!/usr/bin/env bash
set -euo pipefail
dir="$3"  # serve --dir DIR
printf '%s\\n' "$$" >"$dir/pid"
n=$(( $(cat "$COUNTER" 2>/dev/null || echo 0) + 1 ))
printf '%s\\n' "$n" >"$COUNTER"
if (( n <= FAILS )); then
  echo "listen tcp 127.0.0.1:4100$n: bind: address already in use" >&2
  exit 1
fi
echo "apiVersion: v1" >"$dir/kubeconfig"
echo "https://127.0.0.1:6443" >"$dir/ready"
trap 'exit 0' TERM
while :; do sleep 0.1; done
`;

let work: string;
let env: Record<string, string>;

const run = (command: string, fails = 0) =>
  spawnSync("bash", [script, command], {
    env: { ...env, FAILS: String(fails) },
    encoding: "utf8",
    timeout: 60_000,
  });

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "kopf-real-script-"));
  const binary = join(work, "stand-in");
  writeFileSync(binary, standIn);
  chmodSync(binary, 0o755);
  const temp = join(work, "tmp");
  mkdirSync(temp);
  env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    KOPF_REAL_BINARY: binary,
    KOPF_REAL_STATE: join(work, "state"),
    COUNTER: join(work, "launches"),
    TMPDIR: temp,
  };
});

afterEach(() => {
  run("stop");
  rmSync(work, { recursive: true, force: true });
});

const launches = () => Number(readFileSync(join(work, "launches"), "utf8"));
const leftovers = () => readdirSync(join(work, "tmp"));

describe("scripts/real-apiserver.sh start", () => {
  it("starts again when the control plane exits during startup, and says why", () => {
    const started = run("start", 2);
    expect(started.status).toBe(0);
    expect(launches()).toBe(3);
    const kubeconfig = started.stdout.trim().split("\n").pop() ?? "";
    expect(readFileSync(kubeconfig, "utf8")).toContain("apiVersion: v1");
    expect(started.stderr.match(/exited during startup/g)).toHaveLength(2);
    expect(started.stderr).toContain("address already in use");
    expect(started.stderr).toContain("retrying the start (attempt 3 of 3)");
    // Only the running attempt's directory is left, and status sees it ready.
    expect(leftovers()).toHaveLength(1);
    expect(run("status").status).toBe(0);

    expect(run("stop").status).toBe(0);
    expect(run("status").status).not.toBe(0);
    expect(leftovers()).toHaveLength(0);
  });

  it("gives up after three attempts and leaves nothing behind", () => {
    const started = run("start", 5);
    expect(started.status).toBe(1);
    expect(launches()).toBe(3);
    expect(started.stderr.match(/exited during startup/g)).toHaveLength(3);
    expect(started.stdout.trim()).toBe("");
    expect(leftovers()).toHaveLength(0);
    expect(existsSync(join(work, "state", "pid"))).toBe(false);
  });

  it("does not start again when the first attempt succeeds", () => {
    const started = run("start", 0);
    expect(started.status).toBe(0);
    expect(launches()).toBe(1);
    expect(started.stderr).not.toContain("retrying");
  });

  it("refuses a KOPF_REAL_BINARY that is not an executable file", () => {
    env.KOPF_REAL_BINARY = join(work, "missing");
    const started = run("start");
    expect(started.status).toBe(1);
    expect(started.stderr).toContain("is not an executable file");
  });
});
