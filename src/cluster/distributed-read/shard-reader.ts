// The one thing a distributed read needs from the cluster: a way to run a collection-relative REST
// read on one live replica of one shard (docs/architecture.md §13+, "distributed reads"). The
// cluster layer implements it over NATS/HTTP; the tests implement it over `app.inject`.

export interface ShardReader {
  readonly shardCount: number;
  /** A collection-relative REST read ('POST', '/points/query', body) on ONE live replica of
   * `shard`; resolves to the envelope's `result`. Rejects with the replica's QuiverError (a 4xx
   * passes through as is) or a 503 naming the collection and shard when no replica answers in time. */
  call<Result>(shard: number, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result>;
}
