// One frozen, typed configuration: defaults, then a YAML/JSON file (--config), then environment
// variables QUIVER__SECTION__KEY. Invalid values stop the start with a message naming the key.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { parse as parseYamlType } from 'yaml';
import { describeJsonValue } from './json/describe.js';

const ServiceSection = Type.Object({
  host: Type.String({ default: '127.0.0.1', minLength: 1 }),
  http_port: Type.Integer({ default: 6573, minimum: 0, maximum: 65535 }),
  // The gRPC door (docs/api.md §14); 0 or null disables it.
  grpc_port: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Null()], { default: 6574 }),
  max_request_size_mb: Type.Number({ default: 32, exclusiveMinimum: 0, maximum: 1024 }),
  // Connection hygiene (docs/api.md §8): a socket that sends nothing, trickles its headers or
  // idles between requests is closed, so idle clients cannot exhaust file descriptors.
  /** A connection with no traffic at all for this long is closed (0 = never; not advised). */
  idle_timeout_seconds: Type.Number({ default: 30, minimum: 0, maximum: 3600 }),
  /** The request line and headers must arrive within this long of the request's start. */
  header_timeout_seconds: Type.Number({ default: 10, exclusiveMinimum: 0, maximum: 600 }),
  /** A whole request (headers and body) must arrive within this long. */
  request_timeout_seconds: Type.Number({ default: 60, exclusiveMinimum: 0, maximum: 3600 }),
  /** An idle keep-alive connection is closed after this long without a new request. */
  keep_alive_timeout_seconds: Type.Number({ default: 5, exclusiveMinimum: 0, maximum: 600 }),
  /** Connections beyond this many open at once are closed on arrival. */
  max_connections: Type.Integer({ default: 1024, minimum: 1, maximum: 1_000_000 }),
  // Monitoring (docs/api.md §13): `GET /metrics` needs the read permission when auth is on,
  // unless this opens it to any scraper (the probes are always open).
  metrics_public: Type.Boolean({ default: false }),
});

const StorageSection = Type.Object({
  path: Type.String({ default: './storage', minLength: 1 }),
  // Sync every acknowledged write to disk so it survives power loss, not only a killed process.
  fsync: Type.Boolean({ default: true }),
  // A kernel checkpoint is taken after this many operations or this many seconds, whichever first.
  checkpoint_operations: Type.Integer({ default: 10_000, minimum: 1 }),
  checkpoint_interval_seconds: Type.Number({ default: 60, exclusiveMinimum: 0 }),
  // faults (issue 14): writes are refused early (500, "... failed: insufficient storage") while
  // free space on storage.path is below this; 0 disables the check (docs/durability.md).
  free_space_reserve_bytes: Type.Integer({ default: 64 * 1024 * 1024, minimum: 0 }),
  // Large kernel row segments (vectors, codes, links) ask for transparent huge pages: searches
  // stop missing the TLB (docs/architecture.md §24); false keeps 4 KiB pages everywhere.
  huge_pages: Type.Boolean({ default: true }),
});

const AuthSection = Type.Object({
  enabled: Type.Boolean({ default: false }),
  jwt_secret: Type.Union([Type.String({ minLength: 32 }), Type.Null()], { default: null }),
  jwt_ttl_seconds: Type.Integer({ default: 86_400, minimum: 1 }),
  admin_username: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }),
  admin_password: Type.Union([Type.String({ minLength: 8 }), Type.Null()], { default: null }),
  login_attempts_per_minute: Type.Integer({ default: 10, minimum: 1 }),
});

const LogSection = Type.Object({
  level: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  pretty: Type.Union([Type.Boolean(), Type.Null()], { default: null }),
  /** Long work (recovery, graph builds) logs its progress at most this often, per collection. */
  progress_interval_seconds: Type.Number({ default: 5, minimum: 0, maximum: 3600 }),
});

const LimitsSection = Type.Object({
  max_vector_size: Type.Integer({ default: 65_536, minimum: 1 }),
  max_points_per_upsert: Type.Integer({ default: 10_000, minimum: 1 }),
  max_search_limit: Type.Integer({ default: 10_000, minimum: 1 }),
  max_batch_searches: Type.Integer({ default: 1_000, minimum: 1 }),
  max_filter_depth: Type.Integer({ default: 32, minimum: 1 }),
  max_filter_conditions: Type.Integer({ default: 10_000, minimum: 1 }),
  /** Bytes of filter answers kept between reads, for all collections (src/filter/filter-answers.ts); 0 = none. */
  filter_answer_cache_mb: Type.Integer({ default: 32, minimum: 0, maximum: 65_536 }),
  max_payload_bytes: Type.Integer({ default: 1_048_576, minimum: 1 }),
  max_collection_name_length: Type.Integer({ default: 255, minimum: 1, maximum: 255 }),
  /** Writes waiting per collection before new ones get a 503 with Retry-After (docs/api.md §8). */
  max_queued_writes: Type.Integer({ default: 256, minimum: 1, maximum: 1_000_000 }),
  // multivec (issue 19): rows one multivector (point or query) may have (docs/api.md §20).
  max_multivector_rows: Type.Integer({ default: 1024, minimum: 1, maximum: 65_536 }),
});

// ---- cluster (issue 17, docs/cluster.md): off by default; single-node mode needs no NATS.
const ClusterSection = Type.Object({
  enabled: Type.Boolean({ default: false }),
  /** NATS servers with JetStream; the client picks one and fails over to the others. */
  nats_servers: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { default: ['nats://127.0.0.1:4222'], minItems: 1, maxItems: 64 }),
  /** This node's id; null = a random id created once and kept in the data directory. */
  node_id: Type.Union([Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }), Type.Null()], { default: null }),
  /** The HTTP URL other nodes and operators reach this node at (shown in the node list). */
  advertise_url: Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()], { default: null }),
  /** Bound on one shard read or one wait=true apply across the cluster. */
  request_timeout_ms: Type.Integer({ default: 10_000, minimum: 10, maximum: 600_000 }),
  /** A node is live while its heartbeat is younger than three of these. */
  heartbeat_seconds: Type.Number({ default: 2, minimum: 0.1, maximum: 600 }),
  /** Log sequences kept below what every live replica of a shard applied (docs/cluster.md §7). */
  log_retention_operations: Type.Integer({ default: 100_000, minimum: 1, maximum: 1_000_000_000 }),
});

export const ConfigSchema = Type.Object({
  service: ServiceSection,
  storage: StorageSection,
  auth: AuthSection,
  log: LogSection,
  limits: LimitsSection,
  cluster: ClusterSection,
});

export type Config = Static<typeof ConfigSchema>;

/** Raised for any invalid configuration; main prints the message and exits non-zero. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeInto(target: Plain, source: Plain): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isPlainObject(existing) && isPlainObject(value)) mergeInto(existing, value);
    else target[key] = value;
  }
}

/**
 * The YAML parser, loaded on the first config file rather than at every start: most starts name
 * no file, and loading it took ~12 ms of each (bench/README.md, "Start-up trims"). Through
 * `createRequire`, so the server bundle leaves it in node_modules instead of inlining it.
 */
const requireModule = createRequire(import.meta.url);
function parseYaml(text: string): unknown {
  return (requireModule('yaml') as { parse: typeof parseYamlType }).parse(text);
}

/** Reads a config file; YAML is a superset of JSON, so one parser serves both. */
export function readConfigFile(path: string): Plain {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new ConfigError(`config file ${path} must hold a mapping of sections`);
  return parsed;
}

function sectionSchema(section: string): TObject | undefined {
  const schema = (ConfigSchema.properties as Record<string, TSchema>)[section];
  return schema && schema.type === 'object' ? (schema as TObject) : undefined;
}

/** Turns one environment string into the type its key declares, so `false` and `6573` work. */
function convertEnvironmentValue(schema: TSchema, raw: string): unknown {
  const kinds = 'anyOf' in schema ? (schema.anyOf as TSchema[]) : [schema];
  if (raw === 'null' && kinds.some((kind) => kind.type === 'null')) return null;
  // A list (cluster.nats_servers) is given comma-separated.
  if (kinds.some((kind) => kind.type === 'array')) return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (kinds.some((kind) => kind.type === 'boolean') && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  if (kinds.some((kind) => kind.type === 'integer' || kind.type === 'number') && raw.trim() !== '' && !Number.isNaN(Number(raw))) {
    return Number(raw);
  }
  return raw;
}

/** Collects QUIVER__SECTION__KEY variables; an unknown section or key is an error, not ignored. */
export function configFromEnvironment(environment: NodeJS.ProcessEnv): Plain {
  const result: Plain = {};
  for (const [name, raw] of Object.entries(environment)) {
    if (!name.startsWith('QUIVER__') || raw === undefined) continue;
    const parts = name.slice('QUIVER__'.length).toLowerCase().split('__');
    const [section, key] = parts;
    const schema = section === undefined ? undefined : sectionSchema(section);
    const keySchema = schema && key !== undefined ? (schema.properties as Record<string, TSchema>)[key] : undefined;
    if (parts.length !== 2 || !section || !key || !keySchema) {
      throw new ConfigError(`unknown configuration variable ${name} (expected QUIVER__SECTION__KEY, e.g. QUIVER__SERVICE__HTTP_PORT)`);
    }
    const sectionValues = (result[section] ??= {}) as Plain;
    sectionValues[key] = convertEnvironmentValue(keySchema, raw);
  }
  return result;
}

function describePath(path: string): string {
  return path.replace(/^\//, '').replaceAll('/', '.');
}

/** Builds the final config: defaults < file < environment < overrides. Throws ConfigError. */
export function loadConfig(options: { file?: string; environment?: NodeJS.ProcessEnv; overrides?: Plain } = {}): Config {
  const merged: Plain = {};
  if (options.file) mergeInto(merged, readConfigFile(options.file));
  mergeInto(merged, configFromEnvironment(options.environment ?? {}));
  if (options.overrides) mergeInto(merged, structuredClone(options.overrides));
  for (const section of Object.keys(merged)) {
    if (!sectionSchema(section)) throw new ConfigError(`unknown configuration section "${section}"`);
    const known = (sectionSchema(section)!.properties as Record<string, TSchema>);
    const values = merged[section];
    if (!isPlainObject(values)) throw new ConfigError(`configuration section "${section}" must be a mapping`);
    for (const key of Object.keys(values)) {
      if (!(key in known)) throw new ConfigError(`unknown configuration key "${section}.${key}"`);
    }
  }
  for (const section of Object.keys(ConfigSchema.properties)) merged[section] ??= {};
  const withDefaults = Value.Default(ConfigSchema, merged);
  const firstError = Value.Errors(ConfigSchema, withDefaults).First();
  if (firstError) {
    throw new ConfigError(`invalid configuration value for "${describePath(firstError.path)}": ${firstError.message} (got ${describeJsonValue(firstError.value)})`);
  }
  return deepFreeze(withDefaults as Config);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Finds `--config path` or `--config=path` in command-line arguments. */
export function configPathFromArguments(argumentsList: readonly string[]): string | undefined {
  for (let index = 0; index < argumentsList.length; index += 1) {
    const argument = argumentsList[index]!;
    if (argument === '--config') {
      const path = argumentsList[index + 1];
      if (!path) throw new ConfigError('--config needs a file path');
      return path;
    }
    if (argument.startsWith('--config=')) return argument.slice('--config='.length);
  }
  return undefined;
}
