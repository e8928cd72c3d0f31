// The page cache before a benchmark measures memory: unless BENCH_DROP_CACHES=0, dirty pages are
// written back and the clean page cache is dropped once (`/proc/sys/vm/drop_caches`, which needs
// root; without it the run says that it did not), so that every operator's files are read from
// disk as in production, and a just-written file (the node binary npm has just unpacked) does not
// count more pages in an RSS. Why, and what it changed: docs/performance.md, "How it is measured".
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";

const DROP_CACHES = "/proc/sys/vm/drop_caches";

/** What to do with the page cache, and why not when nothing. */
export type Plan = { readonly _tag: "Drop" } | { readonly _tag: "Keep"; readonly why: string };

/**
 * The plan, from BENCH_DROP_CACHES and whether the kernel's knob can be written.
 *
 * @example
 * plan(undefined, true) // { _tag: "Drop" }
 * plan("0", true) // { _tag: "Keep", why: "BENCH_DROP_CACHES=0" }
 */
export const plan = (setting: string | undefined, writable: boolean): Plan => {
  if (setting === "0") return { _tag: "Keep", why: "BENCH_DROP_CACHES=0" };
  if (!writable) return { _tag: "Keep", why: `${DROP_CACHES} is not writable (not root)` };
  return { _tag: "Drop" };
};

const openForWriting = (): number | undefined => {
  try {
    return openSync(DROP_CACHES, "w");
  } catch {
    return undefined;
  }
};

/**
 * Drops the clean page cache once (after writing dirty pages back), when {@link plan} says so;
 * returns the line the benchmark prints about it.
 */
export const settle = (): string => {
  const fd = openForWriting();
  const decided = plan(process.env.BENCH_DROP_CACHES, fd !== undefined);
  if (decided._tag === "Keep") {
    if (fd !== undefined) closeSync(fd);
    return (
      `page cache kept (${decided.why}): files just written, such as a freshly installed node ` +
      "binary, may count more pages in an operator's RSS than after a read from disk"
    );
  }
  try {
    execFileSync("sync");
    writeSync(fd as number, "1\n");
  } finally {
    closeSync(fd as number);
  }
  return "page cache dropped before measuring: every operator's files are read from disk, as in production";
};
