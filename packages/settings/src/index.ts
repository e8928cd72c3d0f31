/** Public API of @kopf/settings: the operator settings tree, its defaults, validation and Effect reference. */
export * as RunOptions from "./RunOptions.ts";
export * as Settings from "./Settings.ts";
export { OperatorSettings } from "./Settings.ts";
export {
  type Issue as SettingsIssue,
  type Reason as SettingsErrorReason,
  SettingsError,
} from "./SettingsError.ts";
