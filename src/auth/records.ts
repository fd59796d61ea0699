// What the auth sublevel holds, in format version 1. Every record is checked against its schema
// when loaded, so a damaged or foreign value stops the start with a message instead of a
// half-working login.
import { Type, type Static } from '@sinclair/typebox';

export const PasswordHashRecord = Type.Object({
  algorithm: Type.Literal('scrypt'),
  cost: Type.Integer({ minimum: 2 }),
  block_size: Type.Integer({ minimum: 1 }),
  parallelization: Type.Integer({ minimum: 1 }),
  salt: Type.String(),
  hash: Type.String(),
});

export const AdminRecord = Type.Object({
  username: Type.String({ minLength: 1 }),
  password: PasswordHashRecord,
  /** Raised by every password reset; a JWT carrying an older value is refused. */
  credential_version: Type.Integer({ minimum: 1 }),
  created_at: Type.String(),
});
export type AdminRecord = Static<typeof AdminRecord>;

export const AccessTokenRecord = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  description: Type.String(),
  created_at: Type.String(),
  expired_at: Type.Union([Type.String(), Type.Null()]),
  permission: Type.String(),
  /** SHA-256 (hex) of the raw value; the raw value itself is never stored. */
  token_sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
export type AccessTokenRecord = Static<typeof AccessTokenRecord>;

export const NextTokenIdRecord = Type.Object({ next_token_id: Type.Integer({ minimum: 1 }) });

/** The listed form of a token (docs/api.md §7.3): never the raw value nor its hash. */
export interface AccessTokenListing {
  id: number;
  name: string;
  description: string;
  created_at: string;
  expired_at: string | null;
  will_expire: boolean;
  permission: string;
}

export function toListing(record: AccessTokenRecord): AccessTokenListing {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    created_at: record.created_at,
    expired_at: record.expired_at,
    will_expire: record.expired_at !== null,
    permission: record.permission,
  };
}
