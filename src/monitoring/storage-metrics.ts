// The storage-health families of GET /metrics (docs/api.md §13.2): the same figures as GET /'s
// `storage` object (docs/durability.md), read at scrape time, so an operator's alert sees a
// degraded store or a torn log tail found at start without polling GET /.
import type { StorageStatus } from '../storage/storage-health.js';
import type { ExtraCollector, ServerMetrics } from './metrics.js';

const states: readonly StorageStatus['state'][] = ['ok', 'degraded', 'recovered_with_loss'];

function family(name: string, help: string, read: (status: StorageStatus) => number | null): (status: () => Promise<StorageStatus | undefined>) => ExtraCollector {
  return (status) => ({
    name,
    help,
    async collect() {
      const current = await status();
      const value = current ? read(current) : null;
      return value === null ? [] : [{ value }];
    },
  });
}

const counters = [
  family('quiverdb_storage_free_bytes', 'Free bytes on the data volume (read at most once a second).', (status) => status.free_bytes),
  family('quiverdb_storage_free_space_reserve_bytes', 'Writes are refused below this many free bytes (storage.free_space_reserve_bytes).', (status) => status.free_space_reserve_bytes),
  family('quiverdb_storage_writes_refused_low_space', 'Writes refused early because free space was below the reserve, since start.', (status) => status.writes_refused_low_space),
  family('quiverdb_storage_write_io_errors', 'Store writes that failed with an I/O error, since start.', (status) => status.write_io_errors),
  family('quiverdb_storage_reopens', 'Times the store was closed and reopened after an I/O error, since start.', (status) => status.reopens),
  family('quiverdb_storage_reopen_failures', 'Failed reopen attempts, since start.', (status) => status.reopen_failures),
  family('quiverdb_storage_torn_log_lost_operations', 'Operations a torn log tail found at start had lost (0: none).', (status) =>
    (status.torn_log_tail?.lost_operations ?? []).reduce((sum, lost) => sum + lost.operationIds.length, 0),
  ),
];

/** Adds the storage families; `status` is Engine.storageStatus (undefined before the store opens). */
export function registerStorageMetrics(metrics: ServerMetrics, status: () => Promise<StorageStatus | undefined>): void {
  metrics.registerExtraCollector({
    name: 'quiverdb_storage_state',
    help: 'The storage state: 1 for the current one of ok, degraded (writes refused) and recovered_with_loss (a torn log tail at start).',
    labelNames: ['state'],
    async collect() {
      const current = await status();
      if (!current) return [];
      return states.map((state) => ({ labels: { state }, value: state === current.state ? 1 : 0 }));
    },
  });
  for (const make of counters) metrics.registerExtraCollector(make(status));
}
