/** Public API of this package. */
// The emulator's transport and tooling: HTTPS server, TLS, fault control, webhook admission, CLI.
export * as WebhookAdmission from "./emulator/admission/WebhookAdmission.ts";
// The emulator's API core: the in-memory Kubernetes API server behind every transport.
export * as EmulatorAdmission from "./emulator/api/Admission.ts";
export {
  type ApiRequest,
  type ApiResponse,
  EmulatorError,
  type EmulatorOptions,
  type EmulatorState,
  KubeEmulator,
  type KubeEmulatorShape,
} from "./emulator/api/Emulator.ts";
export * as EmulatorStatus from "./emulator/api/Status.ts";
export * as EmulatorCommand from "./emulator/cli/EmulatorCommand.ts";
export * as EmulatorMain from "./emulator/cli/EmulatorMain.ts";
export * as ControlApi from "./emulator/control/ControlApi.ts";
export {
  FailureRule,
  FaultInjector,
  FaultRuleError,
  LatencyRule,
  type PendingFaults,
} from "./emulator/control/FaultInjector.ts";
export * as RequestInfo from "./emulator/control/RequestInfo.ts";
export * as Authentication from "./emulator/server/Authentication.ts";
export {
  EmulatorServer,
  type EmulatorServerOptions,
  type KubeconfigUser,
} from "./emulator/server/EmulatorServer.ts";
export { EmulatorServerError } from "./emulator/server/EmulatorServerError.ts";
export * as Kubeconfig from "./emulator/server/Kubeconfig.ts";
export * as CertificateAuthority from "./emulator/tls/CertificateAuthority.ts";
// The emulator as a KubeTransport in-process (no sockets), and a ready KubeApi client over it.
export * as EmulatorTransport from "./kubeapi/EmulatorTransport.ts";
// KopfRunner: an operator under test, in-process, against the emulator or any cluster.
export * as Applying from "./runner/Applying.ts";
export * as Clusters from "./runner/Clusters.ts";
export * as ClusterTarget from "./runner/ClusterTarget.ts";
export * as KopfRunner from "./runner/KopfRunner.ts";
export * as Requests from "./runner/Requests.ts";
