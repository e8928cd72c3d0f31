// scripts/ensure-go.sh: the machine's Go is used when it is of the project's Go line or newer;
// otherwise the newest release of that line for this machine is downloaded from the Go module
// proxy ($GOPROXY's first URL) as the golang.org/toolchain module's zip, unpacked into .tools/go
// with its commands made executable again (module zips keep no file modes), and used from then on
// without another download; a proxy that lists no release of the line is a clear failure. A
// loopback HTTP server plays the proxy, and stand-in `go` programs play the toolchains.
import { spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../ensure-go.sh", import.meta.url));
const platform = `linux-${process.arch === "arm64" ? "arm64" : "amd64"}`;

/** A `go` that answers `go env GOVERSION` with `version`. */
const fakeGo = (version: string) => `#!/bin/sh\n[ "$1 $2" = "env GOVERSION" ] && echo ${version}\n`;

/** A zip archive of `files` (stored, no compression, no file modes: as module zips are). */
const zip = (files: Readonly<Record<string, string>>): Buffer => {
  const locals: Array<Buffer> = [];
  const central: Array<Buffer> = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const path = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(path.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(path.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, path, data);
    central.push(entry, path);
    offset += local.length + path.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
};

let work: string;
let root: string;
let bin: string;
let server: Server;
let proxy: string;
let listed: Array<string>;
let requests: Array<string>;

const run = (): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const child = spawn("bash", [join(root, "scripts/ensure-go.sh")], {
      env: { HOME: work, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, GOPROXY: `${proxy},direct` },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (status) => done({ status, stdout, stderr }));
  });

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), "kopf-ensure-go-"));
  root = join(work, "repo");
  mkdirSync(join(root, "scripts"), { recursive: true });
  mkdirSync(join(root, "tools/kube-apiserver"), { recursive: true });
  copyFileSync(script, join(root, "scripts/ensure-go.sh"));
  writeFileSync(join(root, "tools/kube-apiserver/go.mod"), "module example\n\ngo 1.26.0\n");
  bin = join(work, "bin");
  mkdirSync(bin);
  listed = [];
  requests = [];
  server = createServer((request, response) => {
    const url = request.url ?? "";
    requests.push(url);
    const prefix = "/golang.org/toolchain/@v/";
    if (url === `${prefix}list`) return void response.end(`${listed.join("\n")}\n`);
    const version = url.startsWith(prefix) && url.endsWith(".zip") ? url.slice(prefix.length, -4) : "";
    if (!listed.includes(version)) return void response.writeHead(404).end("not found");
    const goVersion = version.replace(/^v0\.0\.1-/, "").replace(/\.linux-.*$/, "");
    const top = `golang.org/toolchain@${version}`;
    response.end(
      zip({
        [`${top}/bin/go`]: fakeGo(goVersion),
        [`${top}/bin/gofmt`]: "#!/bin/sh\n",
        [`${top}/pkg/tool/${platform.replace("-", "_")}/compile`]: "#!/bin/sh\n",
      }),
    );
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise((done) => server.close(done));
  rmSync(work, { recursive: true, force: true });
});

const putGo = (version: string) => {
  writeFileSync(join(bin, "go"), fakeGo(version));
  chmodSync(join(bin, "go"), 0o755);
};

/** Asserts that a run succeeded, printing `dir` as the directory of its `go`. */
const expectGoIn = (result: { status: number | null; stdout: string }, dir: string) => {
  expect(result.status).toBe(0);
  expect(result.stdout.trim().split("\n").at(-1)).toBe(dir);
};

describe("ensure-go.sh", () => {
  it("uses the machine's Go when it is of the project's line or newer, with no download", async () => {
    putGo("go1.27.2");
    expectGoIn(await run(), bin);
    expect(requests).toEqual([]);
  });

  it("downloads the line's newest release when the machine's Go is older, then reuses it", async () => {
    putGo("go1.19.5");
    listed = [
      `v0.0.1-go1.25.9.${platform}`,
      `v0.0.1-go1.26.2.${platform}`,
      `v0.0.1-go1.26.10.${platform}`,
      `v0.0.1-go1.26.9.${platform}`,
      "v0.0.1-go1.26.11.windows-amd64",
      `v0.0.1-go1.27.0.${platform}`,
    ];
    const first = await run();
    expect(first.stderr).toContain("installing go1.26.10");
    const installed = join(root, ".tools/go/bin");
    expectGoIn(first, installed);
    expect(requests).toEqual([
      "/golang.org/toolchain/@v/list",
      `/golang.org/toolchain/@v/v0.0.1-go1.26.10.${platform}.zip`,
    ]);
    // Made executable again: the archive kept no modes.
    expect(statSync(join(installed, "go")).mode & 0o111).not.toBe(0);
    expect(statSync(join(installed, "gofmt")).mode & 0o111).not.toBe(0);

    requests = [];
    expectGoIn(await run(), installed);
    expect(requests).toEqual([]);
  });

  it("fails naming the problem when the proxy has no release of the line", async () => {
    putGo("go1.19.5");
    listed = [`v0.0.1-go1.25.9.${platform}`, `v0.0.1-go1.27.0.${platform}`];
    const result = await run();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`lists no Go 1.26 for ${platform}`);
    expect(existsSync(join(root, ".tools/go"))).toBe(false);
  });
});
