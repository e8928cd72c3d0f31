/**
 * `kopf manifests` as a command: the `kopf` process on example 01 prints YAML that parses into
 * the expected objects; a scaffolded project's `npm run manifests -- --image ... --output
 * manifests/` (the deployment guide's command) writes the CRDs and the operator apart; typed
 * resources bring their CRDs (and, with a conversion, the webhook Service); managed webhooks their
 * configurations' rules; `--explain` the reasons; `--kubeconfig` resolves the resources among a
 * running cluster's (the emulator over HTTPS here); a selector without a known resource, a missing
 * scope or both scopes are errors naming the fix.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Clusters } from "@kopf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { ManifestsCommand } from "../src/index.ts";
import { httpsCluster } from "./support/httpsCluster.ts";
import { invoke } from "./support/invoke.ts";
import { type Scaffold, scaffold } from "./support/scaffold.ts";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "../bin/kopf.js");
const examples = join(here, "../../../examples");
const fixtures = join(here, "fixtures");

interface Doc {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: ReadonlyArray<{
    apiGroups: Array<string>;
    resources: Array<string>;
    verbs: Array<string>;
  }>;
}

const documents = (yaml: string): ReadonlyArray<Doc> =>
  parseAllDocuments(yaml).map((d) => {
    if (!("toJS" in d) || d.errors.length > 0) throw new Error(`not YAML: ${yaml.slice(0, 200)}`);
    return d.toJS() as Doc;
  });

const kinds = (docs: ReadonlyArray<Doc>) =>
  docs.map((d) => `${d.kind}/${d.metadata.namespace ?? ""}/${d.metadata.name}`);

const granted = (docs: ReadonlyArray<Doc>, kind: string) =>
  docs
    .filter((d) => d.kind === kind)
    .flatMap((d) => d.rules ?? [])
    .map((r) => `${r.verbs.join(",")} ${r.apiGroups.join(",")}/${r.resources.join(",")}`);

describe("the kopf manifests process", () => {
  it("prints the manifests of example 01 as YAML", async () => {
    const child = spawn(
      process.execPath,
      [bin, "manifests", "src/handlers.ts", "-n", "default", "--crd", "../crd.yaml"],
      { cwd: join(examples, "01-minimal"), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const docs = documents(stdout);
    expect(kinds(docs)).toEqual([
      "CustomResourceDefinition//clusterkopfpeerings.kopf.dev",
      "CustomResourceDefinition//kopfpeerings.kopf.dev",
      "KopfPeering/default/default",
      "ServiceAccount/default/kopf-operator",
      "ClusterRole//kopf-operator",
      "ClusterRoleBinding//kopf-operator",
      "Role/default/kopf-operator",
      "RoleBinding/default/kopf-operator",
      "Deployment/default/kopf-operator",
    ]);
    expect(granted(docs, "Role")).toEqual([
      "list kopf.dev/kopfexamples",
      "watch kopf.dev/kopfexamples",
      "patch kopf.dev/kopfexamples",
      "patch kopf.dev/kopfexamples/status",
      "create /events",
      "list kopf.dev/kopfpeerings",
      "watch kopf.dev/kopfpeerings",
      "patch kopf.dev/kopfpeerings",
    ]);
  }, 60_000);
});

describe("kopf manifests in a scaffolded project", () => {
  let project: Scaffold;
  beforeAll(() => {
    project = scaffold("my-op", ["--namespace", "team-a"]);
  }, 60_000);
  afterAll(() => project?.remove());

  it("writes the CRDs and the operator apart (npm run manifests -- --image ... --output manifests/)", async () => {
    const argv = project.manifests("--image", "registry.example.com/my-op:0.1.0", "--output", "manifests/");
    const result = await invoke(argv, project.root);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const dir = join(project.root, "manifests");
    expect(readdirSync(dir).sort()).toEqual([...ManifestsCommand.OUTPUT_FILES]);
    const crds = documents(readFileSync(join(dir, "01-crds.yaml"), "utf8"));
    const operator = documents(readFileSync(join(dir, "02-operator.yaml"), "utf8"));
    expect(crds.every((d) => d.kind === "CustomResourceDefinition")).toBe(true);
    expect(kinds(operator)).toEqual([
      "KopfPeering/team-a/default",
      "ServiceAccount/team-a/my-op",
      "ClusterRole//my-op",
      "ClusterRoleBinding//my-op",
      "Role/team-a/my-op",
      "RoleBinding/team-a/my-op",
      "Deployment/team-a/my-op",
    ]);
    expect(granted(operator, "Role")).toContain("patch example.com/widgets/status");
    const text = readFileSync(join(dir, "02-operator.yaml"), "utf8");
    expect(text).toContain("image: registry.example.com/my-op:0.1.0");
    expect(text).toContain("- dist/handlers.js");
  });

  it("rewrites them for the next image (the upgrade)", async () => {
    const argv = project.manifests("--image", "registry.example.com/my-op:0.2.0", "--output", "manifests/");
    const result = await invoke(argv, project.root);
    expect([result.exitCode, result.stderr]).toEqual([0, ""]);
    const text = readFileSync(join(project.root, "manifests", "02-operator.yaml"), "utf8");
    expect(text).toContain("image: registry.example.com/my-op:0.2.0");
    expect(text).not.toContain("my-op:0.1.0");
  });

  it("takes the last of an option given by the script and again by the user", async () => {
    const result = await invoke(
      project.manifests("--name", "renamed", "--image", "a:1", "--image", "b:2"),
      project.root,
    );
    expect([result.exitCode, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toContain("name: renamed\n");
    expect(result.stdout).not.toContain("name: my-op\n");
    expect(result.stdout).toContain("image: b:2\n");
  });

  it("explains its rules (npm run manifests -- --explain)", async () => {
    const result = await invoke(project.manifests("--explain"), project.root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("in team-a: patch example.com/widgets/status — ");
    expect(result.stdout).toContain("cluster-wide: watch apiextensions.k8s.io/customresourcedefinitions — ");
  });
});

describe("kopf manifests with a cluster", () => {
  let cluster: Clusters.Built;
  let kubeconfig: string;
  beforeAll(async () => {
    ({ cluster, kubeconfig } = await httpsCluster("kopf-manifests-"));
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it("resolves the served resources among the cluster's (--kubeconfig), with no --crd", async () => {
    const result = await invoke(
      ["manifests", "src/handlers.ts", "-n", "default", "--kubeconfig", kubeconfig, "--explain"],
      join(examples, "01-minimal"),
    );
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("in default: patch kopf.dev/kopfexamples/status — ");
  });

  it("fails clearly when the cluster cannot be read", async () => {
    const result = await invoke(
      ["manifests", "src/handlers.ts", "-n", "default", "--kubeconfig", join(tmpdir(), "no-such-kubeconfig")],
      join(examples, "01-minimal"),
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Cannot read the served resources of the cluster");
  });
});

describe("kopf manifests", () => {
  it("brings the CRDs of typed resources, and the webhook Service for their conversion", async () => {
    const result = await invoke(
      ["manifests", "typed.ts", "-A", "--standalone", "--name", "widgets"],
      fixtures,
    );
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const docs = documents(result.stdout);
    expect(kinds(docs)).toEqual([
      "CustomResourceDefinition//widgets.kopf.dev",
      "ServiceAccount/default/widgets",
      "ClusterRole//widgets",
      "ClusterRoleBinding//widgets",
      "Service/default/widgets",
      "Deployment/default/widgets",
    ]);
    expect(granted(docs, "ClusterRole")).toContain("patch kopf.dev/widgets/status");
  });

  it("grants the managed webhook configurations of example 17", async () => {
    const result = await invoke(
      [
        ...["manifests", "src/handlers.ts", "-n", "default", "--crd", "../crd.yaml", "--standalone"],
        ...["--webhook-managed", "auto.kopf.dev", "--explain"],
      ],
      join(examples, "17-admission"),
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(
      "cluster-wide: patch admissionregistration.k8s.io/validatingwebhookconfigurations 'auto.kopf.dev' — ",
    );
    expect(result.stdout).not.toContain("kopfexamples");
  });

  it("passes --sharding and --shard-watch on to the Deployment's kopf run, after Node.js's flag", async () => {
    const result = await invoke(
      ["manifests", "typed.ts", "-A", "--standalone", "--sharding", "--shard-watch", "own-shards"],
      fixtures,
    );
    expect(result.exitCode).toBe(0);
    const deployment = documents(result.stdout).find((d) => d.kind === "Deployment") as unknown as {
      spec: {
        replicas: number;
        template: { spec: { containers: Array<{ command?: Array<string>; args?: Array<string> }> } };
      };
    };
    // Node.js's own flag comes before the entry module (V8 reads it only as Node.js starts).
    expect(deployment.spec.template.spec.containers[0]?.command?.slice(0, 3)).toEqual([
      "node",
      "--no-concurrent-recompilation",
      "node_modules/@kopf/cli/bin/kopf.js",
    ]);
    const args = deployment.spec.template.spec.containers[0]?.args ?? [];
    expect(args).toContain("--sharding");
    expect(args.slice(args.indexOf("--shard-watch"), args.indexOf("--shard-watch") + 2)).toEqual([
      "--shard-watch",
      "own-shards",
    ]);
    expect(deployment.spec.replicas).toBe(2);
    const refused = await invoke(
      ["manifests", "typed.ts", "-A", "--sharding", "--shard-watch", "some"],
      fixtures,
    );
    expect(refused.exitCode).toBe(2); // a usage error, as for kopf run
    expect(refused.stderr).toContain("shard-watch");
  });

  it("takes the settings overrides it is given, under the command line's", async () => {
    const argv = ["manifests", "typed.ts", "-A", "--standalone", "--explain"];
    const plain = await invoke(argv, fixtures);
    expect(plain.stdout).toContain("create events");
    expect(plain.stdout).toContain("customresourcedefinitions");
    const quiet = await invoke(argv, fixtures, {
      posting: { enabled: false },
      scanning: { disabled: true },
      peering: { standalone: false },
    });
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stdout).not.toContain("create events");
    expect(quiet.stdout).not.toContain("customresourcedefinitions");
    expect(quiet.stdout).not.toContain("peerings"); // --standalone wins
  });

  it("refuses a selector it cannot resolve, naming the fix", async () => {
    const result = await invoke(
      ["manifests", "src/handlers.ts", "-n", "default"],
      join(examples, "01-minimal"),
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("'kopfexamples'");
    expect(result.stderr).toContain("--crd FILE");
    expect(result.stdout).toBe("");
  });

  it.each([
    ["../obj.yaml", "holds no CustomResourceDefinition"],
    ["src/handlers.ts", "is not valid YAML"],
    ["missing.yaml", "Cannot read"],
  ])("refuses --crd %s, naming the file", async (file, message) => {
    const result = await invoke(
      ["manifests", "src/handlers.ts", "-n", "default", "--crd", file],
      join(examples, "01-minimal"),
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain(file.replace("../", ""));
  });

  it.each([
    [[], "Pass either --namespace NS"],
    [["-n", "a", "-A"], "Pass either --namespace NS"],
    [["-A", "--leader-election", "--sharding"], "not both"],
  ])("refuses the scope options %j", async (options, message) => {
    const result = await invoke(["manifests", "typed.ts", ...options], fixtures);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it("maps a source handler file to the built module the image runs", () => {
    expect(ManifestsCommand.builtPath("src/handlers.ts")).toBe("dist/handlers.js");
    expect(ManifestsCommand.builtPath("./src/op/main.mts")).toBe("dist/op/main.mjs");
    expect(ManifestsCommand.builtPath("lib/handlers.js")).toBe("lib/handlers.js");
  });
});
