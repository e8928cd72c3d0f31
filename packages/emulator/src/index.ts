/** Public API of this package: the Kubernetes API emulator, in-process and over HTTPS. */
// The in-memory Kubernetes API server behind every transport.

// Its tooling: webhook calling, the `kopf emulator` command, fault control, HTTPS server, TLS.
export * as WebhookAdmission from "./admission/WebhookAdmission.ts";
export * as EmulatorAdmission from "./api/Admission.ts";
export {
  type ApiRequest,
  type ApiResponse,
  EmulatorError,
  type EmulatorOptions,
  type EmulatorState,
  KubeEmulator,
  type KubeEmulatorShape,
} from "./api/Emulator.ts";
export * as EmulatorStatus from "./api/Status.ts";
export * as EmulatorCommand from "./cli/EmulatorCommand.ts";
export * as EmulatorMain from "./cli/EmulatorMain.ts";
export * as ControlApi from "./control/ControlApi.ts";
export {
  FailureRule,
  FaultInjector,
  FaultRuleError,
  LatencyRule,
  type PendingFaults,
} from "./control/FaultInjector.ts";
export * as RequestInfo from "./control/RequestInfo.ts";
// The emulator as a KubeTransport in-process (no sockets), and a ready KubeApi client over it.
export * as EmulatorTransport from "./kubeapi/EmulatorTransport.ts";
export * as Authentication from "./server/Authentication.ts";
export {
  EmulatorServer,
  type EmulatorServerOptions,
  type KubeconfigUser,
} from "./server/EmulatorServer.ts";
export { EmulatorServerError } from "./server/EmulatorServerError.ts";
export * as Kubeconfig from "./server/Kubeconfig.ts";
export * as CertificateAuthority from "./tls/CertificateAuthority.ts";
