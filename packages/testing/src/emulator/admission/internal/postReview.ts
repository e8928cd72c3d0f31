/**
 * One HTTPS POST of an AdmissionReview to a webhook URL, verifying the server with the webhook's
 * caBundle (or the system roots), bounded by the webhook's timeout on Effect's Clock. Failures are
 * described in the words a Go API server uses (`Post "url": dial tcp …: connect: connection
 * refused`), since clients see them inside the `Status` message.
 */
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { Duration, Effect, Result } from "effect";

const describe = (error: NodeJS.ErrnoException, url: URL): string => {
  const address = `${url.hostname}:${url.port === "" ? "443" : url.port}`;
  switch (error.code) {
    case "ECONNREFUSED":
      return `dial tcp ${address}: connect: connection refused`;
    case "ENOTFOUND":
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case "ECONNRESET":
      return "EOF";
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "CERT_SIGNATURE_FAILURE":
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `tls: failed to verify certificate: x509: certificate is not valid for ${url.hostname}`;
    case "CERT_HAS_EXPIRED":
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    default:
      return error.message;
  }
};

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
        res.on("error", (error) => resume(Effect.fail(`${label}: ${describe(error, target)}`)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            resume(
              Effect.fail(
                `${label}: the server responded with the status code ${status}: ${text.slice(0, 256)}`,
              ),
            );
            return;
          }
          const parsed = Result.try({
            try: () => JSON.parse(text) as unknown,
            catch: (error) => `${label}: the webhook's response is not JSON: ${String(error)}`,
          });
          resume(Result.isSuccess(parsed) ? Effect.succeed(parsed.success) : Effect.fail(parsed.failure));
        });
      },
    );
    req.on("error", (error) => resume(Effect.fail(`${label}: ${describe(error, target)}`)));
    req.end(body);
    return Effect.sync(() => req.destroy());
  }).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(timeoutSeconds),
      orElse: () => Effect.fail(`${label}: context deadline exceeded`),
    }),
  );
};
