/** Public API of @kopf/client: the Kubernetes API client of the operator. */

export * as ApiMetrics from "./ApiMetrics.ts";
export type { APIGroup, APIResource, GroupVersionResources } from "./ApiResources.ts";
export * as ApiResources from "./ApiResources.ts";
export * as ApiTracing from "./ApiTracing.ts";
export * as ConnectionInfo from "./ConnectionInfo.ts";
export type { EventSpec } from "./Events.ts";
export * as Events from "./Events.ts";
export * as FailureDigest from "./FailureDigest.ts";
export {
  type ApiError,
  type ApiResource,
  type ClientOptions,
  type DeleteOptions,
  KubeApi,
  type ListBody,
  type ListOptions,
  type ObjectLocation,
  type PatchSpec,
  type RawRequest,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "./KubeApi.ts";
export {
  KubeApiError,
  type Reason as KubeApiErrorReason,
  type ResponseLike,
  type StatusBody,
  type StatusDetails,
} from "./KubeApiError.ts";
export {
  KubeTransport,
  type Method,
  type StreamingResponse,
  type TransportRequest,
  type TransportResponse,
} from "./KubeTransport.ts";
export type { LoginResult } from "./Login.ts";
export * as Login from "./Login.ts";
export { LoginError, type LoginErrorReason } from "./LoginError.ts";
export * as Certificates from "./live/Certificates.ts";
export { CertificateError, type CertificateNames, type SelfSigned } from "./live/Certificates.ts";
export * as KfcBridge from "./live/KfcBridge.ts";
export * as KubeClient from "./live/KubeClient.ts";
export * as KubeConfigLogin from "./live/KubeConfig.ts";
export * as NodeTransport from "./live/NodeTransport.ts";
export * as ServiceAccountLogin from "./live/ServiceAccount.ts";
export * as StartupCheck from "./live/StartupCheck.ts";
export type { TransportOptions } from "./live/TransportOptions.ts";
export * as UndiciTransport from "./live/UndiciTransport.ts";
export * as MetricRecording from "./MetricRecording.ts";
export * as MetricSeries from "./MetricSeries.ts";
export type { RateLimit } from "./RateLimiter.ts";
export * as RateLimiter from "./RateLimiter.ts";
export * as Retries from "./Retries.ts";
export * as Vault from "./Vault.ts";
export { type Credentials, CredentialsVault, type VaultItem, type VaultOptions } from "./Vault.ts";
