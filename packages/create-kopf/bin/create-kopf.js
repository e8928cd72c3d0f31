#!/usr/bin/env node
// The `create-kopf` executable (`npm create kopf@latest my-op`): runs the built scaffolder from
// dist/ when installed, or its TypeScript source in a checkout of the repository.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = realpathSync(fileURLToPath(import.meta.url));
const entry = here.includes("/node_modules/") ? "../dist/main.js" : "../src/main.ts";
await import(new URL(entry, import.meta.url).href);
