/** Public API of @kopf/client: the Kubernetes API client of the operator. */

export * as ConnectionInfo from "./ConnectionInfo.ts";
export {
  KubeApiError,
  type Reason as KubeApiErrorReason,
  type ResponseLike,
  type StatusBody,
  type StatusDetails,
} from "./KubeApiError.ts";
export { LoginError, type LoginErrorReason } from "./LoginError.ts";
export * as Retries from "./Retries.ts";
export * as Vault from "./Vault.ts";
export { type Credentials, CredentialsVault, type VaultItem, type VaultOptions } from "./Vault.ts";
