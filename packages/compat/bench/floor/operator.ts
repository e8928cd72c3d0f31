// The floor of the side-by-side benchmark's CPU per object: the least a Node.js process does to
// serve the benchmark's create handler the way both operators do, with none of an operator
// framework. It watches the namespace over HTTPS, and for every object without the last-handled
// configuration it calls the handler, sends the same two merge patches as `kopf run` (the result
// to the status subresource, then the annotation with the object's essence), parses both
// responses, and prints the same two log lines. Nothing else: no cause detection beyond that
// annotation, no progress records, no retries, no metrics, no queues per object, no Effect, and a
// bare HTTP/1.1 client over `node:tls` (one write per request, responses framed by
// content-length or chunked coding). Its figure says how much of an operator's CPU per object is
// the requests, the watch events and their JSON, TLS and the event loop, which no framework
// avoids. Spawned by start.bench.ts as an operator's entry module (BENCH_START_CLIS), with the
// same command line (`run --standalone -n NS handlers`) and KUBECONFIG (the emulator's: a server,
// its CA and a token).
import { readFileSync } from "node:fs";
import { connect, type TLSSocket } from "node:tls";

const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
const CONCURRENCY = 32;

const namespace = process.argv[process.argv.indexOf("-n") + 1] ?? "default";
const kubeconfig = readFileSync(process.env.KUBECONFIG ?? "", "utf8");
const field = (name: string): string => {
  const match = new RegExp(`${name}: *"?([^"\\n]+)"?`).exec(kubeconfig);
  if (match === null) throw new Error(`no ${name} in the kubeconfig`);
  return match[1] as string;
};
const server = new URL(field("server"));
const ca = Buffer.from(field("certificate-authority-data"), "base64").toString("utf8");
const token = field("token");
const host = server.host;
const port = Number(server.port || 443);

// ---- a bare HTTP/1.1 client ----------------------------------------------------------------------

interface Reply {
  readonly status: number;
  readonly body: Buffer;
}

const open = (): TLSSocket => connect({ host: server.hostname, port, ca });

/** Reads one response (content-length or chunked) from `socket`'s data. */
class Reader {
  private buffered: Buffer = Buffer.alloc(0);
  private head: { status: number; length: number | undefined; chunked: boolean } | undefined;
  private chunks: Array<Buffer> = [];

  /**
   * Feeds bytes; returns the reply once it is whole. With `onChunk` (a watch), each piece of a
   * chunked body goes there as it is read instead of being kept for the reply.
   */
  push(bytes: Buffer, onChunk?: (chunk: Buffer) => void): Reply | undefined {
    this.buffered = this.buffered.length === 0 ? bytes : Buffer.concat([this.buffered, bytes]);
    if (this.head === undefined) {
      const end = this.buffered.indexOf("\r\n\r\n");
      if (end < 0) return undefined;
      const text = this.buffered.toString("latin1", 0, end);
      this.buffered = this.buffered.subarray(end + 4);
      const status = Number(text.slice(9, 12));
      const lengthMatch = /\r\ncontent-length: *(\d+)/i.exec(text);
      this.head = {
        status,
        length: lengthMatch === null ? undefined : Number(lengthMatch[1]),
        chunked: /\r\ntransfer-encoding: *chunked/i.test(text),
      };
    }
    const head = this.head;
    if (!head.chunked) {
      const length = head.length ?? 0;
      if (this.buffered.length < length) return undefined;
      const body = this.buffered.subarray(0, length);
      this.buffered = this.buffered.subarray(length);
      this.head = undefined;
      return { status: head.status, body };
    }
    for (;;) {
      const eol = this.buffered.indexOf("\r\n");
      if (eol < 0) return undefined;
      const size = Number.parseInt(this.buffered.toString("latin1", 0, eol), 16);
      if (this.buffered.length < eol + 2 + size + 2) return undefined;
      const chunk = this.buffered.subarray(eol + 2, eol + 2 + size);
      this.buffered = this.buffered.subarray(eol + 2 + size + 2);
      if (size === 0) {
        const body = Buffer.concat(this.chunks);
        this.chunks = [];
        this.head = undefined;
        return { status: head.status, body };
      }
      if (onChunk !== undefined) onChunk(chunk);
      else this.chunks.push(chunk);
    }
  }
}

const requestBytes = (method: string, path: string, contentType?: string, body?: string): Buffer => {
  const payload = body === undefined ? undefined : Buffer.from(body, "utf8");
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\naccept: application/json\r\nauthorization: Bearer ${token}\r\n`;
  if (payload !== undefined) head += `content-type: ${contentType}\r\ncontent-length: ${payload.length}\r\n`;
  head += "\r\n";
  return payload === undefined
    ? Buffer.from(head, "latin1")
    : Buffer.concat([Buffer.from(head, "latin1"), payload]);
};

interface Connection {
  readonly socket: TLSSocket;
  readonly reader: Reader;
  waiting: ((reply: Reply) => void) | undefined;
}

const idle: Array<Connection> = [];

const connection = (): Connection => {
  const kept = idle.pop();
  if (kept !== undefined) return kept;
  const socket = open();
  const made: Connection = { socket, reader: new Reader(), waiting: undefined };
  socket.on("data", (bytes: Buffer) => {
    const reply = made.reader.push(bytes);
    if (reply === undefined) return;
    const waiting = made.waiting;
    made.waiting = undefined;
    idle.push(made);
    waiting?.(reply);
  });
  socket.on("error", (error) => {
    console.error(`connection failed: ${error.message}`);
    process.exit(1);
  });
  return made;
};

const patch = (path: string, body: string): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const used = connection();
    used.waiting = (reply) => {
      const value = JSON.parse(reply.body.toString("utf8")) as unknown;
      if (reply.status >= 400) reject(new Error(`PATCH ${path}: ${reply.status}`));
      else resolve(value);
    };
    used.socket.write(requestBytes("PATCH", path, "application/merge-patch+json", body));
  });

// ---- the operator --------------------------------------------------------------------------------

interface Meta {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly annotations?: Record<string, string>;
}
interface Body {
  readonly metadata: Meta;
  readonly spec?: unknown;
}

let pendingLog = "";
const log = (name: string, message: string): void => {
  if (pendingLog === "")
    setImmediate(() => {
      process.stdout.write(pendingLog);
      pendingLog = "";
    });
  pendingLog += `[${new Date().toISOString()}] floor [INFO] [${namespace}/${name}] ${message}\n`;
};

function create_fn(): unknown {
  return { ok: true };
}

const busy = new Set<string>();
const handled = new Set<string>();
const queue: Array<Body> = [];
let running = 0;

const base = `/apis/kopf.dev/v1/namespaces/${namespace}/kopfexamples`;

const handle = async (body: Body): Promise<void> => {
  const { name } = body.metadata;
  const result = create_fn();
  log(name, "Handler 'create_fn' succeeded.");
  await patch(`${base}/${name}/status`, JSON.stringify({ status: { create_fn: result } }));
  const essence = `${JSON.stringify({ spec: body.spec })}\n`;
  await patch(`${base}/${name}`, JSON.stringify({ metadata: { annotations: { [LAST_HANDLED]: essence } } }));
  log(name, "Creation is processed: 1 succeeded; 0 failed.");
};

const next = (): void => {
  while (running < CONCURRENCY && queue.length > 0) {
    const body = queue.shift() as Body;
    running += 1;
    handle(body).then(
      () => {
        running -= 1;
        busy.delete(body.metadata.uid);
        handled.add(body.metadata.uid);
        next();
      },
      (error: Error) => {
        console.error(error.message);
        process.exit(1);
      },
    );
  }
};

const onEvent = (event: { type: string; object: Body }): void => {
  const { uid } = event.object.metadata;
  if (event.type === "DELETED") {
    handled.delete(uid);
    return;
  }
  if (event.object.metadata.annotations?.[LAST_HANDLED] !== undefined) return;
  if (busy.has(uid) || handled.has(uid)) return;
  busy.add(uid);
  queue.push(event.object);
  next();
};

let resourceVersion: string | undefined;
const watch = (): void => {
  const socket = open();
  const reader = new Reader();
  let partial = "";
  const onChunk = (chunk: Buffer): void => {
    const text = partial + chunk.toString("utf8");
    const lines = text.split("\n");
    partial = lines.pop() as string;
    for (const line of lines) {
      if (line === "") continue;
      const event = JSON.parse(line) as { type: string; object: Body };
      resourceVersion = event.object.metadata.resourceVersion;
      if (event.type !== "BOOKMARK" && event.type !== "ERROR") onEvent(event);
    }
  };
  socket.on("data", (bytes: Buffer) => {
    if (reader.push(bytes, onChunk) !== undefined) socket.end();
  });
  socket.on("close", () => watch());
  socket.on("error", (error) => console.error(`watch failed: ${error.message}`));
  const since = resourceVersion === undefined ? "" : `&resourceVersion=${resourceVersion}`;
  socket.write(requestBytes("GET", `${base}?watch=true${since}`));
};

process.on("SIGTERM", () => process.exit(0));
watch();
