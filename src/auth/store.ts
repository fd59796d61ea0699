// The auth records in classic-level, in the sublevel `auth`: the admin user, the access tokens
// (by id) and the next token id. Every value is a versioned JSON record (storage/codec.ts).
import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Database } from '../storage/database.js';
import { decodeJsonRecord, encodeJsonRecord } from '../storage/codec.js';
import { AccessTokenRecord, AdminRecord, NextTokenIdRecord } from './records.js';

const formatVersion = 1;
const adminKey = 'admin';
const nextTokenIdKey = 'next_token_id';
const tokenKeyPrefix = 'token/';

/** Zero-padded so that keys sort by id. */
function tokenKey(id: number): string {
  return tokenKeyPrefix + id.toString().padStart(16, '0');
}

function decode<Schema extends TSchema>(schema: Schema, raw: Uint8Array, what: string): Static<Schema> {
  const { value } = decodeJsonRecord(raw, [formatVersion], what);
  if (!Value.Check(schema, value)) {
    const first = Value.Errors(schema, value).First();
    throw new Error(`${what}: damaged record (${first ? `${first.path} ${first.message}` : 'wrong shape'})`);
  }
  return value;
}

export interface LoadedAuthState {
  admin: AdminRecord | undefined;
  tokens: AccessTokenRecord[];
  nextTokenId: number;
}

export class AuthStore {
  private readonly level;

  /**
   * Sublevels pass options through to classic-level, whose `sync` their typings do not declare;
   * naming the key encoding too keeps TypeScript from rejecting the object as unrelated.
   */
  private readonly writeOptions: { keyEncoding: 'utf8'; sync: boolean };

  constructor(database: Database, sync: boolean) {
    this.writeOptions = { keyEncoding: 'utf8', sync };
    this.level = database.sublevel<string, Buffer>('auth', { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  }

  async load(): Promise<LoadedAuthState> {
    const state: LoadedAuthState = { admin: undefined, tokens: [], nextTokenId: 1 };
    for await (const [key, value] of this.level.iterator()) {
      if (key === adminKey) state.admin = decode(AdminRecord, value, 'auth admin record');
      else if (key === nextTokenIdKey) state.nextTokenId = decode(NextTokenIdRecord, value, 'auth token counter').next_token_id;
      else if (key.startsWith(tokenKeyPrefix)) state.tokens.push(decode(AccessTokenRecord, value, `auth ${key}`));
      else throw new Error(`auth sublevel holds an unknown key "${key}"`);
    }
    // Never hand out an id again, even if the counter record were older than a token.
    for (const token of state.tokens) state.nextTokenId = Math.max(state.nextTokenId, token.id + 1);
    return state;
  }

  /** Whether an admin record is stored, without loading everything. */
  async hasAdmin(): Promise<boolean> {
    return (await this.level.get(adminKey)) !== undefined;
  }

  async putAdmin(admin: AdminRecord): Promise<void> {
    await this.level.put(adminKey, encodeJsonRecord(formatVersion, admin), this.writeOptions);
  }

  /** Writes a token and the counter in one batch, so a crash cannot reuse an id. */
  async putToken(token: AccessTokenRecord, nextTokenId: number): Promise<void> {
    await this.level.batch(
      [
        { type: 'put', key: tokenKey(token.id), value: encodeJsonRecord(formatVersion, token) },
        { type: 'put', key: nextTokenIdKey, value: encodeJsonRecord(formatVersion, { next_token_id: nextTokenId }) },
      ],
      this.writeOptions,
    );
  }

  async deleteToken(id: number): Promise<void> {
    await this.level.del(tokenKey(id), this.writeOptions);
  }
}
