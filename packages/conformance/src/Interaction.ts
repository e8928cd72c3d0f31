/**
 * The conformance suite's vocabulary: a sequence is a named list of steps (raw HTTP requests,
 * watches opened in the background and collected later, and polls that wait for a condition),
 * and replaying a step yields an outcome (status, media type, body or watch events) that is
 * normalised and compared between the real API server and the emulator. Every step is one
 * compared interaction.
 */

/** An HTTP method the suite uses. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The raw parsed bodies of the earlier steps of the sequence, by step name. */
export type Earlier = (step: string) => unknown;

/** A value fixed in the script or computed from earlier responses (e.g. a continue token). */
export type Dynamic<A> = A | ((earlier: Earlier) => A);

/** The JSON bodies (or any value) a step may narrow before comparison. */
export type Select = (body: unknown) => unknown;

interface StepBase {
  /** Unique within its sequence; `sequence/name` identifies the interaction. */
  readonly name: string;
  /** Narrows the (parsed) body before comparison, e.g. to the discovery entries under test. */
  readonly select?: Select;
}

/** One request and its response. */
export interface RequestStep extends StepBase {
  readonly kind: "request";
  readonly method: Method;
  /** Path and query, e.g. `/api/v1/namespaces/x/configmaps?limit=2`. */
  readonly path: Dynamic<string>;
  /** A JSON body (serialised as is) or raw text (sent verbatim, e.g. malformed JSON). */
  readonly body?: unknown;
  /** A body computed from earlier responses (takes precedence over `body`). */
  readonly bodyFrom?: (earlier: Earlier) => unknown;
  readonly rawBody?: string;
  /** Default `application/json` when there is a body. */
  readonly contentType?: string;
  /** The Accept header (default `application/json`), e.g. to ask for a meta.k8s.io Table. */
  readonly accept?: string;
}

/** Starts a watch (`?watch=1` is added) whose events are collected by a later `collect`. */
export interface WatchStep extends StepBase {
  readonly kind: "watch";
  readonly id: string;
  readonly path: Dynamic<string>;
  /** The Accept header (default `application/json`). */
  readonly accept?: string;
}

/** Waits for `events` events of watch `id` (or `timeoutMs`), records them and closes the watch. */
export interface CollectStep extends StepBase {
  readonly kind: "collect";
  readonly id: string;
  readonly events: number;
  readonly timeoutMs: number;
}

/**
 * Repeats a request (a GET unless told otherwise) until `until` holds for its status and body
 * (or `timeoutMs`), and records the last response.
 */
export interface PollStep extends StepBase {
  readonly kind: "poll";
  readonly path: string;
  readonly method?: Method;
  readonly body?: unknown;
  readonly until: (status: number, body: unknown) => boolean;
  readonly timeoutMs: number;
}

export type Step = RequestStep | WatchStep | CollectStep | PollStep;

/** A named list of steps run in order against one server. */
export interface Sequence {
  readonly name: string;
  readonly steps: ReadonlyArray<Step>;
}

/** One watch event as received. */
export interface WatchEvent {
  readonly type: string;
  readonly object: unknown;
}

/** What a step produced on one server. */
export interface Outcome {
  /** `sequence/step`. */
  readonly interaction: string;
  readonly status: number;
  /** The media type of the response without parameters ("" when none). */
  readonly mediaType: string;
  /** The parsed JSON body, the raw text if not JSON, or the watch events collected. */
  readonly body: unknown;
  /** The texts of the response's `Warning` headers, in order (requests and polls only). */
  readonly warnings?: ReadonlyArray<string>;
  /** How long the step took (reported, never compared). */
  readonly millis?: number;
}

/**
 * The interaction id of a step in a sequence.
 *
 * @example
 * ```ts
 * Interaction.id("crud", "create") // "crud/create"
 * ```
 */
export const id = (sequence: string, step: string): string => `${sequence}/${step}`;
