/** Public API of @kopf/client: the Kubernetes API client of the operator. */
export {
  KubeApiError,
  type Reason as KubeApiErrorReason,
  type ResponseLike,
  type StatusBody,
  type StatusDetails,
} from "./KubeApiError.ts";
