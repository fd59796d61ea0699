// Admin JWTs: HS256 only (jose), with `exp`. `ver` carries the admin's credential version, so a
// password reset refuses every JWT issued before it, even one issued in the same second.
import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const algorithm = 'HS256';

export interface IssuedJwt {
  token: string;
  expires_at_ms: number;
}

export interface JwtClaims {
  username: string;
  credentialVersion: number;
}

export async function issueJwt(key: Uint8Array, claims: JwtClaims, now_ms: number, ttl_seconds: number): Promise<IssuedJwt> {
  const issuedAtSeconds = Math.floor(now_ms / 1000);
  const expiresAtSeconds = issuedAtSeconds + ttl_seconds;
  const token = await new SignJWT({ ver: claims.credentialVersion })
    .setProtectedHeader({ alg: algorithm, typ: 'JWT' })
    .setSubject(claims.username)
    .setIssuedAt(issuedAtSeconds)
    .setExpirationTime(expiresAtSeconds)
    .setJti(randomBytes(12).toString('base64url'))
    .sign(key);
  return { token, expires_at_ms: expiresAtSeconds * 1000 };
}

/** The claims of a valid JWT, or undefined for anything else (bad signature, `alg: none`, expired, malformed). */
export async function verifyJwt(key: Uint8Array, token: string, now_ms: number): Promise<JwtClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, {
      // Pinning the algorithm refuses `alg: none` and any algorithm swap.
      algorithms: [algorithm],
      currentDate: new Date(now_ms),
      requiredClaims: ['exp', 'sub', 'iat'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number') return undefined;
    return { username: payload.sub, credentialVersion: payload.ver };
  } catch {
    return undefined;
  }
}
