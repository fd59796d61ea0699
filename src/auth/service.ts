// The auth service: loads the auth records in an engine step, then answers "who is this
// credential?" for the permission hook and carries out the auth-management endpoints.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { LifecycleStep } from '../engine/engine.js';
import { errors } from '../errors.js';
import type { Database } from '../storage/database.js';
import { AccessTokens, type AccessTokenWithValue, type NewAccessToken } from './access-tokens.js';
import { AdminAccount, type BootstrapContext } from './admin-account.js';
import type { IssuedJwt } from './jwt.js';
import { loadJwtSecret } from './jwt-secret.js';
import { grantedPermissions, type GrantedPermission } from './permissions.js';
import type { AccessTokenListing } from './records.js';
import { AuthStore } from './store.js';
import { looksLikeAccessToken } from './token-value.js';

export interface AuthServiceOptions {
  settings: Config['auth'];
  dataDirectory: string;
  fsync: boolean;
  logger: Logger;
  /** Lets admin-exists read the database while earlier start-up steps (collections) still load. */
  database?: () => Database | undefined;
  /** Milliseconds since the epoch; tests move it to expire tokens and JWTs. */
  now?: () => number;
}

export interface Principal {
  kind: 'admin' | 'access_token';
  permissions: ReadonlySet<GrantedPermission>;
  token_id?: number;
}

/** At most this many access tokens may exist; each is held in memory. */
const maxAccessTokens = 10_000;
/** How long `GET /auth/admin/exists` waits for the records to load before answering 412. */
const loadWait_ms = 5_000;

const adminPermissions: ReadonlySet<GrantedPermission> = new Set(grantedPermissions);

interface Loaded {
  admin: AdminAccount;
  tokens: AccessTokens;
}

export class AuthService {
  readonly now: () => number;
  private loaded: Loaded | undefined;
  private readonly loadedSignal: Promise<Loaded>;
  private signalLoaded!: (loaded: Loaded) => void;

  constructor(private readonly options: AuthServiceOptions) {
    this.now = options.now ?? Date.now;
    this.loadedSignal = new Promise((resolve) => {
      this.signalLoaded = resolve;
    });
  }

  get enabled(): boolean {
    return this.options.settings.enabled;
  }

  startupStep(): LifecycleStep {
    return { name: 'auth', open: (database) => this.open(database) };
  }

  private async open(database: Database): Promise<void> {
    const { settings, logger } = this.options;
    const store = new AuthStore(database, this.options.fsync);
    const state = await store.load();
    const signingKey = await loadJwtSecret(settings.jwt_secret, this.options.dataDirectory, {
      adminExists: state.admin !== undefined,
      warn: (message) => logger.warn(message),
    });
    const admin = new AdminAccount(
      { store, signingKey, jwtTtlSeconds: settings.jwt_ttl_seconds, loginAttemptsPerMinute: settings.login_attempts_per_minute, now: this.now },
      state.admin,
    );
    const configuredName = settings.admin_username;
    const configuredPassword = settings.admin_password;
    if ((configuredName === null) !== (configuredPassword === null)) {
      throw new Error('auth.admin_username and auth.admin_password must be set together');
    }
    if (configuredName !== null && configuredPassword !== null) {
      const outcome = await admin.applyConfigured(configuredName, configuredPassword);
      if (outcome === 'created') logger.info({ username: configuredName }, 'admin user created from configuration');
      if (outcome === 'replaced') {
        // Never silent: the stored admin may be one somebody else created (docs/api.md §7.5).
        logger.warn(
          { username: configuredName, replaced_username: state.admin?.username },
          'the configured admin (auth.admin_username, auth.admin_password) differs from the stored admin: the configured one replaces it and every JWT issued before is revoked',
        );
      }
    }
    if (!admin.exists && settings.enabled) {
      // The one deliberate secret in the logs: single use, and void once an admin exists.
      logger.warn(`no admin user yet: create it with POST /auth/admin and setup_code ${admin.setupCode}`);
    }
    this.loaded = { admin, tokens: new AccessTokens(store, state.tokens, state.nextTokenId, this.now, maxAccessTokens) };
    this.signalLoaded(this.loaded);
  }

  private get ready(): Loaded {
    if (!this.loaded) throw errors.engineNotInitialized();
    return this.loaded;
  }

  /**
   * Answers even while the engine loads (it is exempt from the 412 guard). Once the database is
   * open it is read directly, since the auth step may be queued behind a long collection load;
   * before that, waits a bounded time for it.
   */
  async adminExists(): Promise<boolean> {
    if (this.loaded) return this.loaded.admin.exists;
    const database = this.options.database?.();
    if (database) {
      const { admin_username, admin_password } = this.options.settings;
      // A configured admin is created by the auth step at this start, so it already counts.
      if (admin_username !== null && admin_password !== null) return true;
      return new AuthStore(database, this.options.fsync).hasAdmin();
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(errors.engineNotInitialized()), loadWait_ms);
      timer.unref();
    });
    try {
      return (await Promise.race([this.loadedSignal, timeout])).admin.exists;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The principal a raw credential (JWT or access token) stands for, or undefined when it is not valid. */
  async authenticate(credential: string): Promise<Principal | undefined> {
    const { admin, tokens } = this.ready;
    if (looksLikeAccessToken(credential)) {
      const token = tokens.authenticate(credential);
      return token ? { kind: 'access_token', permissions: token.permissions, token_id: token.id } : undefined;
    }
    return (await admin.acceptsJwt(credential)) ? { kind: 'admin', permissions: adminPermissions } : undefined;
  }

  async createAdmin(username: string, password: string, context: BootstrapContext): Promise<void> {
    return this.adminApi().create(username, password, context);
  }

  async login(username: string, password: string, address: string): Promise<IssuedJwt> {
    return this.adminApi().login(username, password, address);
  }

  async resetPassword(currentPassword: string, newPassword: string, address: string): Promise<void> {
    return this.adminApi().resetPassword(currentPassword, newPassword, address);
  }

  retryAfterSeconds(address: string): number {
    return this.loaded?.admin.retryAfterSeconds(address) ?? 0;
  }

  /** Only for tests and operators' tooling in-process; never logged by the service itself. */
  get setupCode(): string | undefined {
    return this.loaded?.admin.setupCode;
  }

  createAccessToken(input: NewAccessToken): Promise<AccessTokenWithValue> {
    return this.tokenApi().create(input);
  }

  listAccessTokens(): AccessTokenListing[] {
    return this.tokenApi().list();
  }

  deleteAccessToken(id: number): Promise<void> {
    return this.tokenApi().delete(id);
  }

  rotateAccessToken(id: number): Promise<AccessTokenWithValue> {
    return this.tokenApi().rotate(id);
  }

  /**
   * docs/api.md §7.5: with auth off nothing guards these routes, so they refuse (403) rather
   * than let anyone become admin before auth is switched on.
   */
  private adminApi(): AdminAccount {
    if (!this.enabled) throw errors.adminApiDisabled();
    return this.ready.admin;
  }

  /** docs/api.md §7.1: with auth off, the token API refuses (403). */
  private tokenApi(): AccessTokens {
    if (!this.enabled) throw errors.authDisabled();
    return this.ready.tokens;
  }
}
