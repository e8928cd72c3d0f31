/**
 * Typed custom resources: one definition (names, versions, `spec`/`status` Schemas) gives the
 * CRD with structural OpenAPI schemas, the decoding of bodies into typed values, the conversion
 * between versions, and — the other way round — Schemas from an existing CRD. Pure: no I/O.
 */
export * as ConversionReview from "./ConversionReview.ts";
export * as Crd from "./Crd.ts";
export * as CustomResource from "./CustomResource.ts";
export { ResourceError, type ResourceErrorReason } from "./Errors.ts";
export * as Markers from "./Markers.ts";
export * as OpenApi from "./OpenApi.ts";
export * as TypesFromCrd from "./TypesFromCrd.ts";
