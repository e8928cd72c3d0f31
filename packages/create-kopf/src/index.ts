/** Public API of create-kopf: the scaffolder as functions (the binary is `src/main.ts`). */
export * as Create from "./Create.ts";
export * as Options from "./Options.ts";
export * as Scaffold from "./Scaffold.ts";
export * as Project from "./templates/Project.ts";
