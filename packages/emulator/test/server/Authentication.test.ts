// Covers authentication decisions: client certificates from the CA (user = CN, groups = O),
// bearer tokens with and without a required token, malformed authorization headers, anonymous
// access, and the invariant that a required token is never bypassed without a CA certificate.
import { assert, describe, it } from "@effect/vitest";
import * as Result from "effect/Result";
import fc from "fast-check";
import {
  anonymousUser,
  authenticate,
  type PeerCertificate,
  tokenUser,
} from "../../src/server/Authentication.ts";

const alice: PeerCertificate = { authorized: true, commonName: "alice", organizations: ["devs"] };
const untrusted: PeerCertificate = { authorized: false, commonName: "mallory", organizations: [] };

describe("Authentication.authenticate", () => {
  it.each([
    ["no credentials, no required token", undefined, undefined, undefined, Result.succeed(anonymousUser)],
    ["any token, no required token", "Bearer whatever", undefined, undefined, Result.succeed(tokenUser)],
    ["lower-case bearer", "bearer whatever", undefined, undefined, Result.succeed(tokenUser)],
    ["empty bearer", "Bearer ", undefined, undefined, Result.fail("InvalidToken")],
    [
      "basic auth instead of a token",
      "Basic Zm9vOmJhcg==",
      undefined,
      undefined,
      Result.fail("InvalidToken"),
    ],
    ["required token given", "Bearer s3cret", undefined, "s3cret", Result.succeed(tokenUser)],
    ["required token missing", undefined, undefined, "s3cret", Result.fail("MissingToken")],
    ["required token wrong", "Bearer nope", undefined, "s3cret", Result.fail("InvalidToken")],
    [
      "CA certificate without a token",
      undefined,
      alice,
      "s3cret",
      Result.succeed({ username: "alice", groups: ["devs", "system:authenticated"] }),
    ],
    [
      "CA certificate wins over a wrong token",
      "Bearer nope",
      alice,
      "s3cret",
      Result.succeed({ username: "alice", groups: ["devs", "system:authenticated"] }),
    ],
    [
      "untrusted certificate, required token missing",
      undefined,
      untrusted,
      "s3cret",
      Result.fail("MissingToken"),
    ],
  ] as const)("%s", (_, authorization, peer, requiredToken, expected) => {
    assert.deepStrictEqual<unknown>(authenticate({ authorization, peer, requiredToken }), expected);
  });

  it("a required token is only ever satisfied by itself or a CA certificate", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.option(fc.string()),
        fc.boolean(),
        (required, header, trusted) => {
          const result = authenticate({
            authorization: header ?? undefined,
            peer: { authorized: trusted, commonName: "u", organizations: [] },
            requiredToken: required,
          });
          if (Result.isSuccess(result) && !trusted)
            assert.strictEqual(header?.trim().split(/\s+/)[1], required);
        },
      ),
    );
  });
});
