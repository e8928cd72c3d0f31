/**
 * Key order of served objects: a custom resource's keys sorted at every level (against a plain
 * reference on generated values), unchanged parts shared rather than copied, and `__proto__` kept
 * as a field.
 */
import { describe, expect, it } from "vitest";
import { canonical } from "../../src/api/Canonical.ts";

/** The reference: every object's keys sorted, everything copied. */
const reference = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reference);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: reference((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
};

/** Key order included: JSON text compares it. */
const text = (value: unknown) => JSON.stringify(value);

/** A small deterministic generator of JSON values (keys drawn so that some come out of order). */
const generator = (seed: number) => {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const KEYS = ["a", "b", "c", "spec", "status", "metadata", "f:x", "k:{}", "0", "10", "__proto__", "é"];
  const value = (depth: number): unknown => {
    const pick = next();
    if (depth > 3 || pick < 0.3) return pick < 0.1 ? null : pick < 0.2 ? Math.floor(pick * 1000) : `s${pick}`;
    if (pick < 0.45) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) {
      const key = KEYS[Math.floor(next() * KEYS.length)] as string;
      Object.defineProperty(out, key, {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return () => value(0) as Record<string, unknown>;
};

describe("canonical, custom resources", () => {
  it("sorts every object's keys as the reference does", () => {
    const next = generator(7);
    for (let i = 0; i < 2000; i++) {
      const value = { root: next(), spec: next(), apiVersion: "x/v1" };
      expect(text(canonical(true, value))).toBe(text(reference(value)));
    }
  });

  it("returns parts already in order as they are, and a sorted value itself", () => {
    const inner = { a: 1, b: { c: [1, { d: 2 }] } };
    const value = { z: { y: 1, x: 2 }, a: inner };
    const sorted = canonical(true, value);
    expect(sorted).not.toBe(value);
    expect(sorted.a).toBe(inner);
    expect(Object.keys(sorted.z as object)).toEqual(["x", "y"]);
    expect(canonical(true, sorted)).toBe(sorted);
  });

  it("copies only from the first changed field of an object in order", () => {
    const kept = { k: 1 };
    const value = { a: kept, b: { d: 1, c: 2 }, e: [{ g: 1, f: 2 }] };
    const sorted = canonical(true, value);
    expect(sorted).not.toBe(value);
    expect(sorted.a).toBe(kept);
    expect(text(sorted)).toBe(`{"a":{"k":1},"b":{"c":2,"d":1},"e":[{"f":2,"g":1}]}`);
    expect(text(value)).toBe(`{"a":{"k":1},"b":{"d":1,"c":2},"e":[{"g":1,"f":2}]}`);
  });

  it("does not walk a part that is the previous version's very object", () => {
    const shared = { z: 1, a: 2 }; // out of order, but known sorted by the previous version
    const previous = { spec: shared };
    const sorted = canonical(true, { spec: shared, metadata: { b: 1, a: 1 } }, previous);
    expect(sorted.spec).toBe(shared);
    expect(Object.keys(sorted.metadata as object)).toEqual(["a", "b"]);
  });

  it("keeps a __proto__ key as a field", () => {
    const value = JSON.parse(`{"spec":{"z":1,"__proto__":{"polluted":true}}}`);
    const sorted = canonical(true, value);
    expect(text(sorted)).toBe(`{"spec":{"__proto__":{"polluted":true},"z":1}}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
