/**
 * The arguments of `kopf manifests`: their type, the last value of an option given twice, the
 * built module a handler file runs as, and the run options the Deployment passes on to `kopf run`.
 */
import { extname } from "node:path";
import { RunOptions, type Settings } from "@kopf/settings";
import type * as RunArgs from "../RunArgs.ts";

/** The arguments of `kopf manifests` as yargs parses them (the scope and peering ones as for `kopf run`). */
export interface ManifestsArgs
  extends Pick<
    RunArgs.ParsedRunArgs,
    | "module"
    | "namespace"
    | "all-namespaces"
    | "standalone"
    | "peering"
    | "priority"
    | "leader-election"
    | "sharding"
    | "lease-name"
    | "lease-namespace"
    | "shard-watch"
  > {
  readonly paths?: ReadonlyArray<string> | undefined;
  readonly name?: string | undefined;
  readonly image?: string | undefined;
  readonly "operator-namespace"?: string | undefined;
  readonly output?: string | undefined;
  readonly crd?: ReadonlyArray<string> | undefined;
  readonly entry?: string | undefined;
  readonly replicas?: number | undefined;
  readonly "webhook-managed"?: string | undefined;
  readonly "webhook-port"?: number | undefined;
  readonly explain?: boolean | undefined;
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
}
/** The built module of a handler file: `src/x.ts` runs as `dist/x.js` (the scaffold's build). */
export const builtPath = (path: string): string => {
  const normalized = path.replace(/^\.\//, "");
  if (!normalized.startsWith("src/") || ![".ts", ".mts"].includes(extname(normalized))) return normalized;
  return `dist/${normalized.slice(4, -extname(normalized).length)}${extname(normalized) === ".mts" ? ".mjs" : ".js"}`;
};

/** The run options of the operator: as settings, as `kopf run` flags, and its replicas. */
export interface ManifestRun {
  readonly run: Settings.Overrides;
  readonly argv: ReadonlyArray<string>;
  readonly replicas: number;
}

/** The run options of the operator, from the command line (the Deployment passes them on). */
export const runOptions = (
  args: ManifestsArgs,
  operatorNamespace: string,
  clusterwide: boolean,
): ManifestRun => {
  const scaled = args["leader-election"] === true || args.sharding === true;
  return {
    run: RunOptions.forRun({
      clusterwide,
      peeringName: args.peering,
      standalone: args.standalone,
      priority: args.priority,
      leaderElection: args["leader-election"],
      sharding: args.sharding,
      leaseName: args["lease-name"],
      leaseNamespace: scaled ? (args["lease-namespace"] ?? operatorNamespace) : undefined,
    }),
    argv: [
      ...(args.standalone === true ? ["--standalone"] : []),
      ...(args.peering === undefined ? [] : ["--peering", args.peering]),
      ...(args.priority === undefined ? [] : ["--priority", String(args.priority)]),
      ...(args["leader-election"] === true ? ["--leader-election"] : []),
      ...(args.sharding === true ? ["--sharding"] : []),
      ...(scaled && args["lease-name"] !== undefined ? ["--lease-name", args["lease-name"]] : []),
      ...(scaled ? ["--lease-namespace", args["lease-namespace"] ?? operatorNamespace] : []),
      ...(args.sharding === true && args["shard-watch"] !== undefined
        ? ["--shard-watch", args["shard-watch"]]
        : []),
    ],
    replicas: args.replicas ?? (scaled ? 2 : 1),
  };
};

/** The options that take one value. */
const SINGLE: ReadonlyArray<keyof ManifestsArgs> = [
  "all-namespaces",
  "name",
  "image",
  "operator-namespace",
  "output",
  "entry",
  "replicas",
  "standalone",
  "peering",
  "priority",
  "leader-election",
  "sharding",
  "lease-name",
  "lease-namespace",
  "shard-watch",
  "webhook-managed",
  "webhook-port",
  "explain",
  "kubeconfig",
  "context",
];

/**
 * The arguments with the last value of an option given twice: a script's, then the user's after
 * `npm run manifests --` (yargs collects both).
 *
 * @example
 * lastGiven({ name: ["my-op", "other"] } as never).name // "other"
 */
export const lastGiven = (args: ManifestsArgs): ManifestsArgs => {
  const copy: Record<string, unknown> = { ...args };
  for (const key of SINGLE) {
    const value = copy[key];
    if (Array.isArray(value)) copy[key] = value[value.length - 1];
  }
  return copy as ManifestsArgs;
};
