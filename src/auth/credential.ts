// Where a credential arrives: `Authorization: Bearer <token>` (docs/api.md §7.1) or `api-key: <token>`
// (what Qdrant clients send). Anything else present but malformed counts as a bad credential.
import type { IncomingHttpHeaders } from 'node:http';

/** Longer values are refused unread: no real JWT or token comes near this. */
const maxCredentialLength = 4096;

export type CredentialLookup = { kind: 'none' } | { kind: 'malformed' } | { kind: 'present'; value: string };

export function credentialFromHeaders(headers: IncomingHttpHeaders): CredentialLookup {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return match && match[1]!.length <= maxCredentialLength ? { kind: 'present', value: match[1]! } : { kind: 'malformed' };
  }
  const apiKey = headers['api-key'];
  if (apiKey !== undefined) {
    const value = Array.isArray(apiKey) ? undefined : apiKey.trim();
    return value && value.length <= maxCredentialLength ? { kind: 'present', value } : { kind: 'malformed' };
  }
  return { kind: 'none' };
}
