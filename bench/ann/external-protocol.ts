// The line protocol between bench:ann and its external peers (bench/ann/python/worker.py and
// bench/ann/native/hnswlib_bench.cpp): commands are words on one stdin line, every answer is one
// JSON object on one stdout line. Pure functions only, so the parsing is tested without a worker
// (test/bench-ann-peers.test.ts).

export interface ReadyReply {
  kind: 'ready';
  library: string;
  version: string;
}

export interface BuildReply {
  kind: 'build';
  buildMs: number;
  rssGrowthBytes: number;
  /** The library's own serialized size of the index, when it has one. */
  indexBytes: number | undefined;
}

export interface SearchReply {
  kind: 'search';
  searchMs: number;
}

export interface OverheadReply {
  kind: 'overhead';
  emptyLoopMs: number;
}

export interface CloseReply {
  kind: 'close';
}

/** The filter now in force (a column of the worker's `--filters` file, or none). */
export interface FilterReply {
  kind: 'filter';
  /** How many points the column allows, as the worker counted them (0 for none). */
  allowed: number;
}

export type WorkerReply = ReadyReply | BuildReply | SearchReply | OverheadReply | CloseReply | FilterReply;
export type WorkerCommand =
  | { op: 'build'; threads: number }
  | { op: 'search'; ef: number; output: string }
  | { op: 'filter'; column: number | undefined }
  | { op: 'overhead' }
  | { op: 'close' };

/** The stdin line for a command (no spaces inside a word: paths come from the benchmark's temp dir). */
export function commandLine(command: WorkerCommand): string {
  switch (command.op) {
    case 'build':
      return `build ${command.threads}\n`;
    case 'search':
      if (/\s/.test(command.output)) throw new Error(`worker output path must not contain spaces: ${command.output}`);
      return `search ${command.ef} ${command.output}\n`;
    case 'filter':
      if (command.column !== undefined && !(Number.isInteger(command.column) && command.column >= 0)) throw new Error(`filter column must be a whole number: ${command.column}`);
      return `filter ${command.column ?? 'none'}\n`;
    default:
      return `${command.op}\n`;
  }
}

function finiteNumber(value: unknown, field: string, line: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`worker reply: ${field} is not a finite number in ${line}`);
  return value;
}

/**
 * Reads one reply line as the answer to `expected` (the command that was sent, or 'ready' for
 * the first line). A `{"ok": false}` reply, a line that is not JSON or a reply without the
 * expected fields throws with the worker's words, so a broken peer is reported, never measured.
 */
export function parseReply(line: string, expected: WorkerCommand['op'] | 'ready'): WorkerReply {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`worker reply is not JSON: ${line.slice(0, 200)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`worker reply is not an object: ${line.slice(0, 200)}`);
  const reply = value as Record<string, unknown>;
  if (reply.ok !== true) throw new Error(`worker failed: ${typeof reply.error === 'string' ? reply.error : line.slice(0, 200)}`);
  switch (expected) {
    case 'ready':
      if (reply.ready !== true) throw new Error(`worker's first line is not ready: ${line}`);
      return { kind: 'ready', library: String(reply.library ?? ''), version: String(reply.version ?? '') };
    case 'build': {
      const indexBytes = reply.indexBytes === null || reply.indexBytes === undefined ? undefined : finiteNumber(reply.indexBytes, 'indexBytes', line);
      return {
        kind: 'build',
        buildMs: finiteNumber(reply.buildMs, 'buildMs', line),
        rssGrowthBytes: finiteNumber(reply.rssGrowthBytes, 'rssGrowthBytes', line),
        indexBytes,
      };
    }
    case 'search':
      return { kind: 'search', searchMs: finiteNumber(reply.searchMs, 'searchMs', line) };
    case 'overhead':
      return { kind: 'overhead', emptyLoopMs: finiteNumber(reply.emptyLoopMs, 'emptyLoopMs', line) };
    case 'filter':
      return { kind: 'filter', allowed: finiteNumber(reply.allowed, 'allowed', line) };
    case 'close':
      return { kind: 'close' };
  }
}

/**
 * The ids a worker wrote (K little-endian int32 per query), checked for size: a short file means
 * the worker died mid-write, and is an error rather than a low recall.
 */
export function foundIds(bytes: Uint8Array, queryCount: number, k: number): Int32Array {
  const expected = queryCount * k * 4;
  if (bytes.byteLength !== expected) throw new Error(`worker result file holds ${bytes.byteLength} bytes, expected ${expected}`);
  const copy = new Uint8Array(expected);
  copy.set(bytes);
  return new Int32Array(copy.buffer);
}
