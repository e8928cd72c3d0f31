/** Every conformance sequence, in the order the suite replays them. */
import type { Sequence } from "../Interaction.ts";
import type { WebhookServer } from "../WebhookServer.ts";
import * as Admission from "./Admission.ts";
import * as AdmissionEcho from "./AdmissionEcho.ts";
import * as Crds from "./Crds.ts";
import * as Crud from "./Crud.ts";
import * as Deletion from "./Deletion.ts";
import * as Discovery from "./Discovery.ts";
import * as Leases from "./Leases.ts";
import * as Limits from "./Limits.ts";
import * as Namespaces from "./Namespaces.ts";
import * as Pagination from "./Pagination.ts";
import * as Patches from "./Patches.ts";
import * as Selectors from "./Selectors.ts";
import * as Sharding from "./Sharding.ts";
import * as Tables from "./Tables.ts";
import * as Watches from "./Watches.ts";

/**
 * The sequences for one run; `run` is a short unique suffix for the names they create. With a
 * webhook server (reachable by both API servers), the admission sequence runs too, and the
 * admission-echo sequence when the server answers at the echoing webhooks' paths.
 *
 * @example
 * ```ts
 * const sequences = Sequences.all("k3x9a", webhook)
 * ```
 */
export const all = (run: string, webhook?: WebhookServer): ReadonlyArray<Sequence> => [
  ...[
    Discovery,
    Namespaces,
    Crud,
    Selectors,
    Pagination,
    Patches,
    Crds,
    Deletion,
    Watches,
    Limits,
    Tables,
    Leases,
    Sharding,
  ].map((s) => s.sequence(run)),
  ...(webhook === undefined ? [] : [Admission.sequence(run, webhook)]),
  ...AdmissionEcho.ifEchoing(run, webhook),
];
