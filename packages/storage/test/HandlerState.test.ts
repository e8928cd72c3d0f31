// Covers one handler's state and its progress record (docs/behaviour/progress.md#records, docs/behaviour/progress.md#handler-state, timestamps per docs/behaviour/progress.md#records):
// record timestamps in every accepted ISO-8601 form, new timestamps always with six fractional
// digits and +00:00, the full storable record in Kopf's field order, change detection against
// the loaded record, and decoding errors.
import { describe, expect, it } from "@effect/vitest";
import { IsoTime } from "@kopf/structs";
import * as Result from "effect/Result";
import * as HandlerState from "../src/HandlerState.ts";
import * as ProgressRecord from "../src/ProgressRecord.ts";

const NOW = Result.getOrThrow(IsoTime.parse("2020-12-31T23:59:59.123456+00:00"));
const loaded = (record: ProgressRecord.ProgressRecord) =>
  Result.getOrThrow(HandlerState.fromStorage(record, NOW, "fn"));

describe("timestamps in records (docs/behaviour/progress.md#records)", () => {
  it.each([
    ["2000-01-01T00:00:00.000000+00:00", 946_684_800_000_000],
    ["2000-01-01T00:00:00.000000", 946_684_800_000_000],
    ["2000-01-01T00:00:00Z", 946_684_800_000_000],
    ["2000-01-01T00:00:00.5Z", 946_684_800_500_000],
    ["2000-01-01T11:00:00.000000+11:00", 946_684_800_000_000],
    ["1999-12-31T13:00:00.000000-11:00", 946_684_800_000_000],
  ])("reads started=%s", (text, micros) => {
    expect(loaded({ started: text }).started).toBe(micros);
  });

  it.each([
    [946_684_800_000_000, "2000-01-01T00:00:00.000000+00:00"],
    [946_684_800_000_001, "2000-01-01T00:00:00.000001+00:00"],
    [NOW, "2020-12-31T23:59:59.123456+00:00"],
  ])("writes new times with six fractional digits and +00:00 (%d)", (micros, text) => {
    expect(HandlerState.forStorage(HandlerState.fromScratch(micros)).started).toBe(text);
  });

  it("rewrites a time in Kopf's form once it has changed", () => {
    const state = HandlerState.withOutcome(
      loaded({ delayed: "2000-01-01T00:00:00Z" }),
      { final: false, delay: 1 },
      NOW,
    );
    expect(HandlerState.forStorage(state).delayed).toBe("2021-01-01T00:00:00.123456+00:00");
  });

  it("reports an unparseable time with the record key and field", () => {
    const result = HandlerState.fromStorage({ stopped: "noon" }, NOW, "kopf.zalando.org/fn");
    expect(Result.isFailure(result)).toBe(true);
    if (Result.isFailure(result)) {
      expect(result.failure.reason).toBe("InvalidField");
      expect(result.failure.message).toContain("kopf.zalando.org/fn");
      expect(result.failure.message).toContain("stopped");
    }
  });
});

describe("records", () => {
  it("stores every field in Kopf's order", () => {
    const state = HandlerState.withOutcome(
      HandlerState.fromScratch(NOW, "create"),
      { final: true, error: { message: "boom" } },
      NOW,
    );
    const record = HandlerState.forStorage(state);
    expect(Object.keys(record)).toEqual([...ProgressRecord.FIELDS]);
    expect(ProgressRecord.encode(record, false)).toBe(
      '{"started":"2020-12-31T23:59:59.123456+00:00","stopped":"2020-12-31T23:59:59.123456+00:00","purpose":"create","retries":1,"success":false,"failure":true,"message":"boom"}',
    );
    expect(ProgressRecord.encode(record, true)).toBe(
      '{"started":"2020-12-31T23:59:59.123456+00:00","stopped":"2020-12-31T23:59:59.123456+00:00","delayed":null,"purpose":"create","retries":1,"success":false,"failure":true,"message":"boom","subrefs":null}',
    );
  });

  it.each([
    [
      "a complete Kopf record",
      { started: "2020-12-31T23:59:59.123456+00:00", retries: 0, success: false, failure: false },
      false,
    ],
    ["a record missing the flags", { started: "2020-12-31T23:59:59.123456+00:00", retries: 0 }, true],
    ["an empty record", {}, true],
    [
      "a record with an empty purpose",
      {
        started: "2020-12-31T23:59:59.123456+00:00",
        purpose: "",
        retries: 0,
        success: false,
        failure: false,
      },
      true,
    ],
  ])("detects changes against the loaded record: %s", (_, record, changed) => {
    expect(HandlerState.isChanged(loaded(record))).toBe(changed);
  });

  it("sorts subrefs by code point, as Python does", () => {
    const subrefs = ["fn/\u{1F600}", "fn/\uFF21", "fn/b", "fn/a"];
    const state = HandlerState.withOutcome(HandlerState.fromScratch(NOW), { final: true, subrefs }, NOW);
    expect(state.subrefs).toEqual(["fn/a", "fn/b", "fn/\uFF21", "fn/\u{1F600}"]);
  });

  it("is always changed when new", () => {
    expect(HandlerState.isChanged(HandlerState.fromScratch(NOW))).toBe(true);
  });

  it.each([
    ["retries", { retries: "1" }],
    ["success", { success: "yes" }],
    ["subrefs", { subrefs: ["a", 1] }],
    ["purpose", { purpose: 5 }],
  ])("rejects a record with a wrongly typed %s", (field, record) => {
    const result = ProgressRecord.validate(record, "fn");
    expect(Result.isFailure(result) && result.failure.message).toContain(field);
  });

  it("tolerates unknown fields, as Kopf", () => {
    expect(Result.isSuccess(ProgressRecord.validate({ retries: 1, future: { x: 1 } }, "fn"))).toBe(true);
  });
});
