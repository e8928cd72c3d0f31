/** Public API of this package. */
// The emulator's transport and tooling: HTTPS server, TLS, fault control, webhook admission, CLI.
export * as WebhookAdmission from "./emulator/admission/WebhookAdmission.ts";
export * as EmulatorCommand from "./emulator/cli/EmulatorCommand.ts";
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
