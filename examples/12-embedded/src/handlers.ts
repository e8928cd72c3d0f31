/**
 * Kopf's example 12: the handlers of an operator embedded into an application (see `main.ts`).
 * They greet objects with templates from the operator's memo, which the application provides.
 */
import * as kopf from "kopf";

/** What the application puts into the operator's memo. */
export interface Templates {
  readonly createTpl: string;
  readonly deleteTpl: string;
}

const render = (template: string, name: string | undefined) => template.replaceAll("{name}", name ?? "");

kopf.on.create("kopfexamples", function create_fn({ memo, name, logger }) {
  logger.info(render((memo as unknown as Templates).createTpl, name));
});

kopf.on.delete("kopfexamples", function delete_fn({ memo, name, logger }) {
  logger.info(render((memo as unknown as Templates).deleteTpl, name));
});
