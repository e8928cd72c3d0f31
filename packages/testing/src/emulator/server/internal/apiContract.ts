/**
 * The emulator core's contract as the transport sees it (`ApiRequest`, `ApiResponse`, the
 * `KubeEmulator` service). Until the core's `api/Emulator.ts` lands this restates the agreed
 * contract; afterwards it only re-exports the core's definitions.
 */
import { Context, type Effect, type Stream } from "effect";

/** One Kubernetes API request, decoded from HTTP. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
  readonly user: { readonly username: string; readonly uid?: string; readonly groups: ReadonlyArray<string> };
}

/** A complete or streaming (watch) response. */
export type ApiResponse =
  | {
      readonly _tag: "Complete";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Uint8Array;
    }
  | {
      readonly _tag: "Streaming";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Stream.Stream<Uint8Array>;
    };

/** Every stored object, for saving and restoring the emulator. */
export type EmulatorState = unknown;

/** The API semantics behind the transport. */
export class KubeEmulator extends Context.Service<
  KubeEmulator,
  {
    readonly handle: (request: ApiRequest) => Effect.Effect<ApiResponse>;
    readonly dropWatches: Effect.Effect<void>;
    readonly compactHistory: Effect.Effect<void>;
    readonly exportState: Effect.Effect<EmulatorState>;
    readonly importState: (state: EmulatorState) => Effect.Effect<void>;
    readonly apply: (objects: ReadonlyArray<unknown>) => Effect.Effect<void, unknown>;
  }
>()("@kopf/testing/KubeEmulator") {}
