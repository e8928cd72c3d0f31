/** The scaffolder's options: defaults, derived names, and each bad value named before writing. */
import { describe, expect, it } from "vitest";
import * as Options from "../src/Options.ts";

describe("pluralOf", () => {
  it.each([
    ["Widget", "widgets"],
    ["Policy", "policies"],
    ["Gateway", "gateways"],
    ["Box", "boxes"],
    ["Mesh", "meshes"],
    ["Status", "statuses"],
  ])("%s is %s", (kind, plural) => {
    expect(Options.pluralOf(kind)).toBe(plural);
  });
});

describe("validate", () => {
  it("fills in the defaults", () => {
    expect(Options.validate({ directory: "my-op" })).toEqual({
      ok: true,
      options: {
        directory: "my-op",
        name: "my-op",
        group: "example.com",
        version: "v1",
        kind: "Widget",
        plural: "widgets",
        singular: "widget",
        clusterwide: false,
        namespace: "default",
      },
    });
  });

  it("takes the package name from the directory's last segment", () => {
    const validated = Options.validate({ directory: "work/ops/db-op/", kind: "Database", group: "acme.io" });
    expect(validated.ok && validated.options.name).toBe("db-op");
    expect(validated.ok && validated.options.plural).toBe("databases");
  });

  it.each([
    [{}, "MissingDirectory"],
    [{ directory: "  " }, "MissingDirectory"],
    [{ directory: "My-Op" }, "BadName"],
    [{ directory: "my op" }, "BadName"],
    [{ directory: "op", group: "acme" }, "BadGroup"],
    [{ directory: "op", group: "Acme.io" }, "BadGroup"],
    [{ directory: "op", kind: "database" }, "BadKind"],
    [{ directory: "op", kind: "Data-base" }, "BadKind"],
    [{ directory: "op", plural: "Databases" }, "BadPlural"],
    [{ directory: "op", namespace: "Prod" }, "BadNamespace"],
  ] as const)("%j is refused: %s", (raw, reason) => {
    const validated = Options.validate(raw);
    expect(validated.ok).toBe(false);
    if (!validated.ok) {
      expect(validated.error.reason).toBe(reason);
      expect(validated.error.message).not.toBe("");
    }
  });
});
