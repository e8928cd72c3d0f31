/**
 * Which cluster a test tier runs against, chosen by the `KOPF_TEST_CLUSTER` environment variable:
 * `emulator` (the in-process API emulator over HTTPS, the default), `real` (the kube-apiserver
 * built from tools/kube-apiserver by scripts/real-apiserver.sh), or `kubeconfig:PATH` (any
 * cluster a kubeconfig reaches: kind, k3d, minikube…). Parsing is pure; `Clusters.selected`
 * turns a target into a cluster for `KopfRunner`, and `@kopf/conformance`'s `Cluster` starts the
 * real API server for `real`.
 */
import * as Data from "effect/Data";
import * as Result from "effect/Result";

/** A cluster to run against. */
export type Target =
  | { readonly _tag: "Emulator" }
  | { readonly _tag: "Real" }
  | { readonly _tag: "Kubeconfig"; readonly path: string };

/** The environment variable naming the target. */
export const ENV_VAR = "KOPF_TEST_CLUSTER";

/** Why a target specification was rejected. */
export class TargetError extends Data.TaggedError("TargetError")<{
  readonly reason: "Unknown" | "EmptyPath" | "Unresolved";
  readonly message: string;
}> {}

export const emulator: Target = { _tag: "Emulator" };
export const real: Target = { _tag: "Real" };
export const kubeconfig = (path: string): Target => ({ _tag: "Kubeconfig", path });

/**
 * Parses a target specification; an absent or empty one means the emulator.
 *
 * @example
 * ```ts
 * Target.parse("kubeconfig:/home/me/.kube/config") // Result.succeed({ _tag: "Kubeconfig", path: "/home/me/.kube/config" })
 * Target.parse(undefined)                           // Result.succeed({ _tag: "Emulator" })
 * ```
 */
export const parse = (spec: string | undefined): Result.Result<Target, TargetError> => {
  const text = (spec ?? "").trim();
  if (text === "" || text === "emulator") return Result.succeed(emulator);
  if (text === "real") return Result.succeed(real);
  if (text.startsWith("kubeconfig:")) {
    const path = text.slice("kubeconfig:".length).trim();
    return path === ""
      ? Result.fail(
          new TargetError({
            reason: "EmptyPath",
            message: `${ENV_VAR}=kubeconfig: needs a path, e.g. kubeconfig:$HOME/.kube/config`,
          }),
        )
      : Result.succeed(kubeconfig(path));
  }
  return Result.fail(
    new TargetError({
      reason: "Unknown",
      message: `${ENV_VAR}=${JSON.stringify(text)} is not a cluster: expected emulator, real or kubeconfig:PATH`,
    }),
  );
};

/**
 * A short label for reports.
 *
 * @example
 * ```ts
 * Target.describe(Target.real) // "real kube-apiserver"
 * ```
 */
export const describe = (target: Target): string => {
  switch (target._tag) {
    case "Emulator":
      return "emulator";
    case "Real":
      return "real kube-apiserver";
    case "Kubeconfig":
      return `kubeconfig ${target.path}`;
  }
};
