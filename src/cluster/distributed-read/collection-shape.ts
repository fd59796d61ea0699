// What a merge must know of the collection's config: which way each vector's scores point and
// which names are sparse (with or without IDF). Read once per request from shard 0's
// CollectionInfo (`GET C`, docs/api.md §4.3); every shard has the same config.
import type { Distance } from '../../native/vector-index.js';
import type { ShardReader } from './shard-reader.js';

interface VectorParams {
  size?: number;
  distance?: Distance;
}

interface CollectionInfo {
  config?: { params?: { vectors?: VectorParams | Record<string, VectorParams>; sparse_vectors?: Record<string, { modifier?: string | null }> | null } };
}

export class CollectionShape {
  private constructor(
    private readonly dense: Map<string, Distance>,
    private readonly sparse: Map<string, string | undefined>,
  ) {}

  static async read(reader: ShardReader): Promise<CollectionShape> {
    const info = await reader.call<CollectionInfo>(0, 'GET', '');
    const params = info.config?.params ?? {};
    const dense = new Map<string, Distance>();
    const vectors = params.vectors ?? {};
    if (typeof (vectors as VectorParams).distance === 'string') dense.set('', (vectors as VectorParams).distance!);
    else for (const [name, vector] of Object.entries(vectors as Record<string, VectorParams>)) if (vector?.distance) dense.set(name, vector.distance);
    const sparse = new Map<string, string | undefined>();
    for (const [name, vector] of Object.entries(params.sparse_vectors ?? {})) sparse.set(name, vector?.modifier ?? undefined);
    return new CollectionShape(dense, sparse);
  }

  /** The distance of a dense vector name ('' the unnamed one), undefined for a sparse or unknown name. */
  distance(using: string): Distance | undefined {
    return this.dense.get(using);
  }

  isSparse(using: string): boolean {
    return this.sparse.has(using);
  }

  /** IDF weights come from the whole collection's statistics, which no shard holds. */
  usesIdf(using: string): boolean {
    return this.sparse.get(using) === 'idf';
  }
}
