/**
 * The V8 and Node.js flags a process was started with, as the tunings of `kopf run` look at them
 * to leave alone what the user set: Node's command line before the script (`process.execArgv`)
 * and the `NODE_OPTIONS` environment variable.
 */

/** Every option of the command line and `NODE_OPTIONS`, in order. */
export const startFlags = (execArgv: ReadonlyArray<string>, nodeOptions: string | undefined): string[] => [
  ...execArgv,
  ...(nodeOptions ?? "").split(/\s+/).filter((option) => option !== ""),
];

/**
 * Whether any of `flags` (written `--with-dashes`) is among `options`: whatever its value, with
 * underscores or dashes, and negated (`--no-…`) or not, since either way the user chose it.
 */
export const mentions = (options: ReadonlyArray<string>, flags: ReadonlyArray<string>): boolean =>
  options.some((option) => {
    const name = (option.split("=")[0] ?? "").replaceAll("_", "-").replace(/^--no-/, "--");
    return flags.includes(name);
  });
