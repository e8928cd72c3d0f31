/**
 * One HTTPS POST of an AdmissionReview to a webhook URL, verifying the server with the webhook's
 * caBundle (or the system roots), bounded by the webhook's timeout on Effect's Clock. Failures are
 * described in the words a Go API server uses (`Post "url": dial tcp …: connect: connection
 * refused`; see `WebhookFailures`), since clients see them inside the `Status` message.
 */
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import * as WebhookFailures from "../WebhookFailures.ts";

/**
 * Posts `document` to `url` and answers the parsed JSON response, or why the call failed.
 */
export const postReview = (
  url: URL,
  document: unknown,
  caPem: string | undefined,
  timeoutSeconds: number,
): Effect.Effect<unknown, string> => {
  const target = new URL(url);
  target.searchParams.set("timeout", `${timeoutSeconds}s`);
  const label = `Post "${target.toString()}"`;
  if (target.protocol !== "https:") return Effect.fail(`${label}: webhook URLs must use the https scheme`);
  const body = JSON.stringify(document);
  return Effect.callback<unknown, string>((resume) => {
    const req = httpsRequest(
      target,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, */*",
          "user-agent": "kube-apiserver-admission",
          "content-length": Buffer.byteLength(body),
        },
        ...(caPem === undefined ? {} : { ca: caPem }),
        ...(isIP(target.hostname.replace(/^\[|\]$/g, "")) === 0 ? { servername: target.hostname } : {}),
        agent: false,
      },
      (res) => {
        const chunks: Array<Buffer> = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", (error) =>
          resume(Effect.fail(`${label}: ${WebhookFailures.connectionError(error, target)}`)),
        );
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          // client-go's errors for error statuses do not name the request.
          if (status < 200 || status > 299) {
            resume(Effect.fail(WebhookFailures.httpError(status, res.headers["content-type"], text)));
            return;
          }
          const parsed = Result.try({
            try: () => JSON.parse(text) as unknown,
            // As the API machinery reports a body it cannot decode (its JSON error texts are Go's own).
            catch: (error) => `couldn't get version/kind; json parse error: ${String(error)}`,
          });
          resume(Result.isSuccess(parsed) ? Effect.succeed(parsed.success) : Effect.fail(parsed.failure));
        });
      },
    );
    req.on("error", (error) =>
      resume(Effect.fail(`${label}: ${WebhookFailures.connectionError(error, target)}`)),
    );
    req.end(body);
    return Effect.sync(() => req.destroy());
  }).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(timeoutSeconds),
      orElse: () => Effect.fail(`${label}: context deadline exceeded`),
    }),
  );
};
