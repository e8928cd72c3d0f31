// Covers the secret values of a kubeconfig user (every kind, short values left out) and their
// removal from text.
import { assert, describe, it } from "@effect/vitest";
import { redact, secretsOf } from "../../../src/live/internal/secrets.ts";

describe("secrets of a user", () => {
  it("tokens, passwords, key and certificate data, exec env values, auth-provider settings", () => {
    const secrets = secretsOf({
      name: "u",
      token: "token-value",
      password: "password-value",
      certData: "cert-data-value",
      keyData: "key-data-value",
      exec: {
        command: "x",
        args: [],
        env: [
          { name: "A", value: "env-value" },
          { name: "B", value: "eu" },
        ],
      },
      authProvider: { name: "oidc", config: { "client-secret": "client-secret-value", port: 8080 } },
    });
    assert.deepStrictEqual(secrets, [
      "token-value",
      "password-value",
      "cert-data-value",
      "key-data-value",
      "env-value",
      "client-secret-value",
    ]);
  });

  it.each([
    ["no secret here", ["token-value"], "no secret here"],
    ["a token-value and token-value again", ["token-value"], "a *** and *** again"],
    ["env-value: token-value", ["token-value", "env-value"], "***: ***"],
  ] as const)("redact(%j)", (text, secrets, expected) => {
    assert.strictEqual(redact(text, secrets), expected);
  });
});
