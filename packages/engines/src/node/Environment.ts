/**
 * Where identities come from (edge code): `POD_ID` from the environment, the OS user and the
 * host's names, for `Identity.make`.
 */
import { hostname, userInfo } from "node:os";
import { IsoTime } from "@kopf/structs";
import * as Effect from "effect/Effect";
import * as Random from "effect/Random";
import * as Identity from "../Identity.ts";

const user = (): string => {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? "unknown";
  }
};

/**
 * The identity of this process: an operator's, or a manual one for `freeze`/`resume`.
 *
 * @example
 * ```ts
 * const identity = yield* Environment.identity(false) // "me@box/20261130080102/x7q"
 * ```
 */
export const identity = (manual: boolean): Effect.Effect<string> =>
  Effect.gen(function* () {
    let random = "";
    for (let i = 0; i < 3; i++) {
      random += Identity.ALPHABET[Math.floor((yield* Random.next) * Identity.ALPHABET.length)] ?? "x";
    }
    return Identity.make(
      { podId: process.env.POD_ID, user: user(), hostnames: [hostname()], now: yield* IsoTime.now, random },
      manual,
    );
  });
