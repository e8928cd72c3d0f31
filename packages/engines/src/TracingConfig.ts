/**
 * Whether and where the operator exports traces, decided from OpenTelemetry's standard
 * environment variables (pure; the environment is read by the edge code in `node/Tracing.ts`).
 * Tracing is off unless configured: an OTLP endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`), or `OTEL_TRACES_EXPORTER=otlp` (then the
 * default `http://localhost:4318/v1/traces`). `OTEL_SDK_DISABLED=true` and any
 * `OTEL_TRACES_EXPORTER` without `otlp` (e.g. `none`) turn it off. Traces go over OTLP/HTTP
 * as JSON; the service name, resource attributes and sampler come from `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`.
 */

/** The decision. */
export type Decision =
  | { readonly _tag: "Off"; readonly reason: string }
  | { readonly _tag: "On"; readonly endpoint: string };

/** The default OTLP/HTTP traces endpoint. */
export const DEFAULT_ENDPOINT = "http://localhost:4318/v1/traces";

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/**
 * Decides from the environment.
 *
 * @example
 * decide({}) // { _tag: "Off", reason: "no OTLP endpoint is configured" }
 * decide({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }) // { _tag: "On", endpoint: "http://collector:4318/v1/traces" }
 * decide({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }) // { _tag: "Off", ... }
 */
export const decide = (env: Readonly<Record<string, string | undefined>>): Decision => {
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true")
    return { _tag: "Off", reason: "OTEL_SDK_DISABLED is true" };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (exporters.length > 0 && !exporters.includes("otlp"))
    return { _tag: "Off", reason: `OTEL_TRACES_EXPORTER is ${exporters.join(",")}` };
  if (present(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT))
    return { _tag: "On", endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.trim() };
  if (present(env.OTEL_EXPORTER_OTLP_ENDPOINT))
    return {
      _tag: "On",
      endpoint: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.trim().replace(/\/+$/, "")}/v1/traces`,
    };
  if (exporters.includes("otlp")) return { _tag: "On", endpoint: DEFAULT_ENDPOINT };
  return { _tag: "Off", reason: "no OTLP endpoint is configured" };
};
