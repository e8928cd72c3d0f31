/** The `create-kopf` executable: {@link create} with the process's streams and directory. */
import { create } from "./Create.ts";

process.exitCode = await create(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
});
