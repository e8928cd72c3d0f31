// Covers reading Warning headers: one header line per warning (kube-apiserver) or one
// comma-joined line (the emulator, or a proxy) give the same texts, quoted pairs undone.
import { describe, expect, it } from "vitest";
import * as Connection from "../src/Connection.ts";

describe("Connection.warningTexts", () => {
  it.each<[string, ReadonlyArray<string>, ReadonlyArray<string>]>([
    ["no header", [], []],
    ["one per line", ['299 - "a"', '299 - "b"'], ["a", "b"]],
    ["comma-joined", ['299 - "a", 299 - "b"'], ["a", "b"]],
    ["commas and escapes inside", ['299 - "x, \\"y\\" \\\\ z"'], ['x, "y" \\ z']],
    ["with a date", ['299 kube "a" "Mon, 30 Nov 2026 10:00:00 GMT", 299 - "b"'], ["a", "b"]],
  ])("%s", (_name, values, texts) => {
    expect(Connection.warningTexts(values)).toEqual(texts);
  });
});
