// Types of node-version.js, the launcher's Node.js version check.

/** The oldest Node.js the packages run on. */
export declare const REQUIRED: string;
/** Whether `found` (like `process.versions.node`) is at least `required`. */
export declare const satisfies: (found: string, required?: string) => boolean;
/** The one-line complaint about `found`, or `undefined` when it is recent enough. */
export declare const problem: (found: string, executable?: string, required?: string) => string | undefined;
