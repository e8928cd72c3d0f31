/**
 * Who is calling: the emulator authenticates requests as a real API server configured with client
 * certificates and static bearer tokens does. A client certificate issued by the emulator's CA
 * makes its CN the user and its O entries the groups; a bearer token is accepted when it is the
 * required one (or any token when none is required); with no credentials the caller is anonymous,
 * unless a token is required.
 */
import * as Result from "effect/Result";

/** The authenticated user, as admission reviews report it. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: ReadonlyArray<string>;
}

/** What the TLS layer established about the peer. */
export interface PeerCertificate {
  /** Whether the certificate chains to the emulator's CA. */
  readonly authorized: boolean;
  readonly commonName: string | undefined;
  readonly organizations: ReadonlyArray<string>;
}

/** The user a bearer token stands for. */
export const tokenUser: UserInfo = {
  username: "system:admin",
  groups: ["system:masters", "system:authenticated"],
};

/** The user of requests without credentials. */
export const anonymousUser: UserInfo = { username: "system:anonymous", groups: ["system:unauthenticated"] };

/** Why a request was not authenticated. */
export type AuthenticationFailure = "MissingToken" | "InvalidToken";

const bearerToken = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? "";
};

/**
 * Authenticates a request from its `authorization` header and TLS peer certificate.
 *
 * @example
 * ```ts
 * Authentication.authenticate({ authorization: "Bearer abc", peer: undefined, requiredToken: "abc" });
 * // Result.succeed(tokenUser)
 * ```
 */
export const authenticate = (input: {
  readonly authorization: string | undefined;
  readonly peer: PeerCertificate | undefined;
  readonly requiredToken: string | undefined;
}): Result.Result<UserInfo, AuthenticationFailure> => {
  const peer = input.peer;
  if (peer?.authorized === true && peer.commonName !== undefined && peer.commonName.length > 0) {
    return Result.succeed({
      username: peer.commonName,
      groups: [...peer.organizations, "system:authenticated"],
    });
  }
  const token = bearerToken(input.authorization);
  if (token === undefined) {
    return input.requiredToken === undefined ? Result.succeed(anonymousUser) : Result.fail("MissingToken");
  }
  if (token.length === 0) return Result.fail("InvalidToken");
  if (input.requiredToken !== undefined && token !== input.requiredToken) return Result.fail("InvalidToken");
  return Result.succeed(tokenUser);
};
