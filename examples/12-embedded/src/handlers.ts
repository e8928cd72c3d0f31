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

/** A template from the memo, checked: the memo is whatever the application put into it. */
const template = (memo: kopf.Memo, key: keyof Templates): string => {
  const value = memo[key];
  return typeof value === "string" ? value : `{name}: the memo has no ${key}`;
};

const render = (text: string, name: string | undefined) => text.replaceAll("{name}", name ?? "");

kopf.on.create("kopfexamples", function create_fn({ memo, name, logger }) {
  logger.info(render(template(memo, "createTpl"), name));
});

kopf.on.delete("kopfexamples", function delete_fn({ memo, name, logger }) {
  logger.info(render(template(memo, "deleteTpl"), name));
});
