// Managed access tokens (docs/api.md §7.3): create, list, delete, rotate, and the lookup
// that authenticates a raw value. Raw values live only in responses; memory and disk hold SHA-256.
import { errors } from '../errors.js';
import { formatPermissionList, parsePermissionList, type GrantedPermission } from './permissions.js';
import { toListing, type AccessTokenListing, type AccessTokenRecord } from './records.js';
import type { AuthStore } from './store.js';
import { accessTokenDigest, newAccessTokenValue } from './token-value.js';

export interface NewAccessToken {
  name: string;
  description?: string;
  permission: string;
  /** RFC 3339; absent or null: the token never expires. */
  expires_at?: string | null;
}

export type AccessTokenWithValue = AccessTokenListing & { token: string };

export interface AuthenticatedToken {
  id: number;
  permissions: ReadonlySet<GrantedPermission>;
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export class AccessTokens {
  private readonly byId = new Map<number, AccessTokenRecord>();
  private readonly byDigest = new Map<string, AccessTokenRecord>();

  constructor(
    private readonly store: AuthStore,
    loaded: readonly AccessTokenRecord[],
    private nextId: number,
    private readonly now: () => number,
    private readonly maxTokens: number,
  ) {
    for (const record of loaded) this.remember(record);
  }

  async create(input: NewAccessToken): Promise<AccessTokenWithValue> {
    if (this.byId.size >= this.maxTokens) throw errors.accessTokenLimit(this.maxTokens);
    const permissions = parsePermissionList(input.permission);
    const expiredAt = this.parseExpiry(input.expires_at ?? null);
    const raw = newAccessTokenValue();
    const id = this.nextId;
    this.nextId += 1;
    const record: AccessTokenRecord = {
      id,
      name: input.name,
      description: input.description ?? '',
      created_at: new Date(this.now()).toISOString(),
      expired_at: expiredAt,
      permission: formatPermissionList(permissions),
      token_sha256: accessTokenDigest(raw),
    };
    await this.store.putToken(record, this.nextId);
    this.remember(record);
    return { ...toListing(record), token: raw };
  }

  list(): AccessTokenListing[] {
    return [...this.byId.values()].sort((left, right) => left.id - right.id).map(toListing);
  }

  async delete(id: number): Promise<void> {
    const record = this.byId.get(id);
    if (!record) throw errors.accessTokenNotFound();
    // Forgotten before the write, so the token is refused from this moment on.
    this.forget(record);
    try {
      await this.store.deleteToken(id);
    } catch (error) {
      this.remember(record);
      throw error;
    }
  }

  /** A new raw value for the same record; the old value stops working. Expired tokens are refused. */
  async rotate(id: number): Promise<AccessTokenWithValue> {
    const record = this.byId.get(id);
    if (!record) throw errors.accessTokenNotFound();
    if (this.isExpired(record)) throw errors.expiredTokenRotation();
    const raw = newAccessTokenValue();
    const rotated: AccessTokenRecord = { ...record, token_sha256: accessTokenDigest(raw) };
    await this.store.putToken(rotated, this.nextId);
    // The record may have been deleted while the write was in flight: do not bring it back.
    if (this.byId.get(id) !== record) {
      await this.store.deleteToken(id);
      throw errors.accessTokenNotFound();
    }
    this.forget(record);
    this.remember(rotated);
    return { ...toListing(rotated), token: raw };
  }

  /** The token a raw value belongs to, if it exists and has not expired. */
  authenticate(raw: string): AuthenticatedToken | undefined {
    const record = this.byDigest.get(accessTokenDigest(raw));
    if (!record || this.isExpired(record)) return undefined;
    return { id: record.id, permissions: new Set(parsePermissionList(record.permission)) };
  }

  private isExpired(record: AccessTokenRecord): boolean {
    return record.expired_at !== null && this.now() >= Date.parse(record.expired_at);
  }

  private parseExpiry(value: string | null): string | null {
    if (value === null) return null;
    const time = Date.parse(value);
    if (!rfc3339.test(value) || Number.isNaN(time)) throw errors.invalidField('expires_at', `must be an RFC 3339 date-time (got ${JSON.stringify(value)})`);
    if (time <= this.now()) throw errors.invalidField('expires_at', 'must be in the future');
    return new Date(time).toISOString();
  }

  private remember(record: AccessTokenRecord): void {
    this.byId.set(record.id, record);
    this.byDigest.set(record.token_sha256, record);
  }

  private forget(record: AccessTokenRecord): void {
    this.byId.delete(record.id);
    this.byDigest.delete(record.token_sha256);
  }
}
