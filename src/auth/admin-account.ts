// The single admin user: set from configuration at every start, or created once by the bootstrap
// endpoint with the one-time setup code (docs/api.md §7.5); logs in for JWTs, resets its password.
import { randomBytes } from 'node:crypto';
import { errors } from '../errors.js';
import type { IssuedJwt } from './jwt.js';
import { issueJwt, verifyJwt } from './jwt.js';
import { FailedAttemptLimiter } from './login-limiter.js';
import { decoyHash, hashPassword, verifyPassword } from './password.js';
import type { AdminRecord } from './records.js';
import { secretsEqual } from './secret-compare.js';
import type { AuthStore } from './store.js';

export interface AdminAccountOptions {
  store: AuthStore;
  signingKey: Uint8Array;
  jwtTtlSeconds: number;
  loginAttemptsPerMinute: number;
  now: () => number;
}

export interface BootstrapContext {
  /** Always required: no address, loopback or not, stands in for it (docs/api.md §7.5). */
  setupCode: string | undefined;
  /** The peer address, only for limiting failed attempts. */
  address: string;
}

/** What applying the configured admin at start did (docs/api.md §7.5). */
export type ConfiguredAdminOutcome = 'created' | 'unchanged' | 'replaced';

export class AdminAccount {
  private creating = false;
  /** Generated while no admin exists; consumed when one is created. */
  private currentSetupCode: string | undefined;
  private readonly limiter: FailedAttemptLimiter;

  constructor(
    private readonly options: AdminAccountOptions,
    private record: AdminRecord | undefined,
  ) {
    this.limiter = new FailedAttemptLimiter(options.loginAttemptsPerMinute, options.now);
    if (!record) this.currentSetupCode = randomBytes(16).toString('hex');
  }

  get exists(): boolean {
    return this.record !== undefined;
  }

  /** The code an operator passes to `POST /auth/admin`; undefined once an admin exists. */
  get setupCode(): string | undefined {
    return this.currentSetupCode;
  }

  /** Whole seconds until `address` may try a password again (the Retry-After of a 429). */
  retryAfterSeconds(address: string): number {
    return this.limiter.retryAfterSeconds(address);
  }

  /** Creates the first admin through `POST /auth/admin`: only with the one-time setup code. */
  async create(username: string, password: string, context: BootstrapContext): Promise<void> {
    if (this.record || this.creating) throw errors.adminAlreadyExists();
    this.limiter.assertAllowed(context.address);
    const expected = this.currentSetupCode;
    if (context.setupCode === undefined || expected === undefined || !secretsEqual(context.setupCode, expected)) {
      this.limiter.recordFailure(context.address);
      throw errors.setupCodeRequired();
    }
    await this.store(username, password, 1);
  }

  /**
   * Makes the configured credentials the admin: creates it, leaves a matching one alone, or
   * replaces a different one (another name, or a password that does not verify) with a raised
   * credential version, so every JWT of the replaced admin stops working.
   */
  async applyConfigured(username: string, password: string): Promise<ConfiguredAdminOutcome> {
    const record = this.record;
    if (!record) {
      await this.store(username, password, 1);
      return 'created';
    }
    if (record.username === username && (await verifyPassword(password, record.password))) return 'unchanged';
    await this.store(username, password, record.credential_version + 1);
    return 'replaced';
  }

  private async store(username: string, password: string, credentialVersion: number): Promise<void> {
    // Claimed before the first await so that two concurrent requests cannot both create one.
    this.creating = true;
    try {
      const record: AdminRecord = {
        username,
        password: await hashPassword(password),
        credential_version: credentialVersion,
        created_at: new Date(this.options.now()).toISOString(),
      };
      await this.options.store.putAdmin(record);
      this.record = record;
      this.currentSetupCode = undefined;
    } finally {
      this.creating = false;
    }
  }

  async login(username: string, password: string, address: string): Promise<IssuedJwt> {
    this.limiter.assertAllowed(address);
    // Counted before checking, so a burst of parallel guesses cannot slip past the limit.
    this.limiter.recordFailure(address);
    const record = this.record;
    const nameMatches = record !== undefined && secretsEqual(username, record.username);
    // Always run scrypt, so a wrong name costs as long as a wrong password.
    const passwordMatches = await verifyPassword(password, record?.password ?? (await decoyHash()));
    if (!record || !nameMatches || !passwordMatches) throw errors.invalidLogin();
    this.limiter.recordSuccess(address);
    return issueJwt(
      this.options.signingKey,
      { username: record.username, credentialVersion: record.credential_version },
      this.options.now(),
      this.options.jwtTtlSeconds,
    );
  }

  /** Changes the password and revokes every JWT issued so far (they carry the old version). */
  async resetPassword(currentPassword: string, newPassword: string, address: string): Promise<void> {
    const record = this.record;
    if (!record) throw errors.invalidLogin();
    this.limiter.assertAllowed(address);
    this.limiter.recordFailure(address);
    if (!(await verifyPassword(currentPassword, record.password))) throw errors.wrongCurrentPassword();
    this.limiter.recordSuccess(address);
    const updated: AdminRecord = {
      ...record,
      password: await hashPassword(newPassword),
      credential_version: record.credential_version + 1,
    };
    await this.options.store.putAdmin(updated);
    this.record = updated;
  }

  /** Whether `token` is a valid JWT of the current admin with the current credential version. */
  async acceptsJwt(token: string): Promise<boolean> {
    const claims = await verifyJwt(this.options.signingKey, token, this.options.now());
    const record = this.record;
    if (!claims || !record) return false;
    return claims.username === record.username && claims.credentialVersion === record.credential_version;
  }
}
