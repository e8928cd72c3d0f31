// Covers the benchmark's decision about the page cache: dropped before measuring unless the user
// keeps it or the kernel's knob cannot be written, and always saying why it was kept.
import { describe, expect, it } from "vitest";
import * as PageCache from "../../bench/internal/pageCache.ts";

describe("PageCache.plan", () => {
  it.each<{ setting: string | undefined; writable: boolean; expected: PageCache.Plan }>([
    { setting: undefined, writable: true, expected: { _tag: "Drop" } },
    { setting: "1", writable: true, expected: { _tag: "Drop" } },
    { setting: "0", writable: true, expected: { _tag: "Keep", why: "BENCH_DROP_CACHES=0" } },
    { setting: "0", writable: false, expected: { _tag: "Keep", why: "BENCH_DROP_CACHES=0" } },
    {
      setting: undefined,
      writable: false,
      expected: { _tag: "Keep", why: "/proc/sys/vm/drop_caches is not writable (not root)" },
    },
  ])("BENCH_DROP_CACHES=$setting, writable $writable", ({ setting, writable, expected }) => {
    expect(PageCache.plan(setting, writable)).toEqual(expected);
  });

  it("keeps the cache, and says so, when told to", () => {
    const before = process.env.BENCH_DROP_CACHES;
    process.env.BENCH_DROP_CACHES = "0";
    try {
      expect(PageCache.settle()).toMatch(/^page cache kept \(BENCH_DROP_CACHES=0\)/);
    } finally {
      if (before === undefined) delete process.env.BENCH_DROP_CACHES;
      else process.env.BENCH_DROP_CACHES = before;
    }
  });
});
