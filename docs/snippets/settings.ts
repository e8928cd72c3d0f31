/** docs/guide/settings.md: its TypeScript blocks. Type-checked, never run: nothing here runs at import but registrations. */

import { OperatorSettings, Settings } from "@kopf/settings";
import { Effect } from "effect";
import * as kopf from "kopf";

// block 1
kopf.on.startup(function configure({ settings }) {
  settings.posting.level = "Warn";
  settings.persistence.finalizer = "example.com/my-operator";
  settings.watching.serverTimeout = 270;
  settings.networking.errorBackoffs = [1, 2, 4, 8];
});

// block 2
export const start = (signal: AbortSignal) =>
  kopf.operator({
    namespaces: ["default"],
    settings: { posting: { enabled: false }, queueing: { workerLimit: 20 } },
    signal,
  });

// block 3
export const finalizerName = Effect.gen(function* () {
  return (yield* OperatorSettings).persistence.finalizer; // "example.com/mine"
}).pipe(Effect.provide(Settings.layer({ persistence: { finalizer: "example.com/mine" } })));
