"""One peer index of `npm run bench:ann`, driven by bench/ann/external.ts over stdin / stdout.

Started once per index (and per scratch build) with the library and the dataset's shape; the
dataset itself is read from raw little-endian float32 files (`base.f32`, `queries.f32`) that the
benchmark writes once per dataset. Commands arrive one per line on stdin, words separated by
spaces; every command is answered by exactly one JSON object on one stdout line (the protocol is
described in bench/README.md, "External peers"):

    build <threads>           -> {"ok": true, "buildMs": .., "rssGrowthBytes": .., "indexBytes": ..}
    search <ef> <output.i32>  -> {"ok": true, "searchMs": ..}   (K int32 ids per query, -1 padded)
    filter <column|none>      -> {"ok": true, "allowed": ..}   (a column of --filters, used by
                                 every later search until the next filter command)
    overhead                  -> {"ok": true, "emptyLoopMs": ..}
    close                     -> {"ok": true}, then exit

The first line, before any command, is {"ok": true, "ready": true, "library": .., "version": ..}.
A failure answers {"ok": false, "error": ".."} and the process stays usable.

Searches are single-query calls on one thread, like the other contenders; the time is taken
inside this process around the call loop only, so the process hop is not counted. A Python call
loop still costs something per query: `overhead` times the same loop calling a function that does
nothing, so the report can say how much of a peer's time is the loop.

Filtered search (bench/ann/filtered.ts): `--filters` names a file of `--filter-columns` columns
of `count` bytes each (1 = the point is allowed), column after column. Each library gets the
filter the way its users give it: faiss an IDSelectorBitmap in SearchParametersHNSW; qdrant-edge
a boolean payload field per column (`f0`, `f1`, ..) with a payload index on it, matched by a
`must` condition, so its query planner picks the strategy as Qdrant does.
"""

import argparse
import gc
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np


def resident_bytes():
    """RSS of this process from /proc/self/statm (Linux), after a collection."""
    gc.collect()
    with open("/proc/self/statm", "r", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def normalized(rows):
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1
    return np.ascontiguousarray(rows / norms, dtype=np.float32)


class FaissPeer:
    """faiss HNSW: flat float32 (`faiss`), 8-bit scalar codes (`faiss-sq8`) or sign bits (`faiss-binary`)."""

    def __init__(self, kind, options, base, queries):
        import faiss

        self.faiss = faiss
        self.kind = kind
        self.options = options
        self.version = faiss.__version__
        cosine = options.distance == "Cosine"
        # Cosine = inner product on unit vectors, the way faiss is used for it.
        self.base = normalized(base) if cosine else base
        query_rows = normalized(queries) if cosine else queries
        self.metric = faiss.METRIC_INNER_PRODUCT if cosine else faiss.METRIC_L2
        if kind == "faiss-binary":
            self.base = np.packbits(self.base > 0, axis=1)
            query_rows = np.packbits(query_rows > 0, axis=1)
        # One (1, d) view per query, made once outside the timed loop.
        self.queries = [query_rows[row : row + 1] for row in range(query_rows.shape[0])]
        self.index = None
        self.selector = None
        self.selector_bits = None

    def set_filter(self, _number, column):
        if column is None:
            self.selector = self.selector_bits = None
            return
        # faiss reads bit i of the bitmap as (bitmap[i >> 3] >> (i & 7)) & 1.
        self.selector_bits = np.packbits(column, bitorder="little")
        self.selector = self.faiss.IDSelectorBitmap(column.shape[0], self.faiss.swig_ptr(self.selector_bits))

    def build(self, threads):
        faiss = self.faiss
        faiss.omp_set_num_threads(threads)
        dimension = self.options.dimension
        if self.kind == "faiss":
            index = faiss.IndexHNSWFlat(dimension, self.options.m, self.metric)
        elif self.kind == "faiss-sq8":
            index = faiss.IndexHNSWSQ(dimension, faiss.ScalarQuantizer.QT_8bit, self.options.m, self.metric)
        else:
            index = faiss.IndexBinaryHNSW(dimension, self.options.m)
        index.hnsw.efConstruction = self.options.ef_construct
        if not index.is_trained:
            index.train(self.base)
        index.add(self.base)
        self.index = index
        # Searches are single-query calls on one thread, like every other contender.
        faiss.omp_set_num_threads(1)

    def index_bytes(self):
        serialize = self.faiss.serialize_index_binary if self.kind == "faiss-binary" else self.faiss.serialize_index
        return int(serialize(self.index).nbytes)

    def search(self, ef, found):
        index = self.index
        index.hnsw.efSearch = ef
        k = self.options.k
        queries = self.queries
        if self.selector is not None:
            params = self.faiss.SearchParametersHNSW()
            params.efSearch = ef
            params.sel = self.selector
            start = time.perf_counter()
            for row, query in enumerate(queries):
                _, labels = index.search(query, k, params=params)
                found[row] = labels[0]
            return (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        for row, query in enumerate(queries):
            _, labels = index.search(query, k)
            found[row] = labels[0]
        return (time.perf_counter() - start) * 1000

    def call_once(self, row):
        return self.queries[row]

    def close(self):
        self.index = None


class QdrantEdgePeer:
    """Qdrant's engine embedded (qdrant-edge-py): one shard, one HNSW segment, searched with hnsw_ef."""

    def __init__(self, options, base, queries, filters):
        import qdrant_edge

        self.edge = qdrant_edge
        self.filters = filters
        self.filter = None
        self.options = options
        self.version = getattr(qdrant_edge, "__version__", "0.9.0")
        self.base = base
        # Its API takes Python lists: converted once, outside the timed searches.
        self.queries = [row.tolist() for row in queries]
        self.shard = None
        self.directory = None

    def build(self, threads):
        edge = self.edge
        self.close()
        self.directory = tempfile.mkdtemp(prefix="quiver-bench-qdrant-edge-")
        distance = edge.Distance.Euclid if self.options.distance == "Euclid" else edge.Distance.Cosine
        config = edge.EdgeConfig(
            vectors=edge.EdgeVectorParams(size=self.options.dimension, distance=distance),
            hnsw_config=edge.HnswIndexConfig(
                m=self.options.m,
                ef_construct=self.options.ef_construct,
                full_scan_threshold=10,
                max_indexing_threads=threads,
            ),
            # One segment holding every point, indexed whatever its size: one graph, like the others.
            optimizers=edge.EdgeOptimizersConfig(default_segment_number=1, indexing_threshold=1),
            max_search_threads=1,
            wal_enabled=False,
        )
        shard = edge.EdgeShard.create(self.directory, config)
        columns = 0 if self.filters is None else self.filters.shape[0]
        # Indexed before the graph is built, so the build sees them (payload-aware links).
        for number in range(columns):
            shard.update(edge.UpdateOperation.create_field_index(f"f{number}", edge.PayloadSchemaType.Keyword))
        batch = 5_000
        count = self.base.shape[0]
        for start in range(0, count, batch):
            rows = self.base[start : min(count, start + batch)]
            points = [
                edge.Point(start + offset, row.tolist(), self.payload(start + offset, columns) if columns else None) for offset, row in enumerate(rows)
            ]
            shard.update(edge.UpdateOperation.upsert_points(points))
        shard.optimize()
        self.shard = shard

    def payload(self, point, columns):
        return {f"f{number}": "yes" if self.filters[number, point] else "no" for number in range(columns)}

    def set_filter(self, number, _column):
        edge = self.edge
        self.filter = None if number is None else edge.Filter(must=[edge.FieldCondition(key=f"f{number}", match=edge.MatchValue("yes"))])

    def index_bytes(self):
        return None

    def search(self, ef, found):
        edge = self.edge
        shard = self.shard
        k = self.options.k
        params = edge.SearchParams(hnsw_ef=ef)
        nearest = edge.Query.Nearest
        request = edge.SearchRequest
        chosen = self.filter
        start = time.perf_counter()
        for row, query in enumerate(self.queries):
            points = shard.search(request(query=nearest(query), limit=k, filter=chosen, params=params))
            for position, point in enumerate(points):
                found[row, position] = point.id
        return (time.perf_counter() - start) * 1000

    def call_once(self, row):
        return self.queries[row]

    def close(self):
        if self.shard is not None:
            self.shard.close()
            self.shard = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None


def make_peer(options, base, queries, filters):
    if options.library in ("faiss", "faiss-sq8", "faiss-binary"):
        return FaissPeer(options.library, options, base, queries)
    if options.library == "qdrant-edge":
        return QdrantEdgePeer(options, base, queries, filters)
    raise ValueError(f"unknown library {options.library}")


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def handle(peer, words, options, filters):
    command = words[0] if words else ""
    if command == "build":
        threads = int(words[1])
        peer.close()
        before = resident_bytes()
        start = time.perf_counter()
        peer.build(threads)
        build_ms = (time.perf_counter() - start) * 1000
        return {"ok": True, "buildMs": build_ms, "rssGrowthBytes": resident_bytes() - before, "indexBytes": peer.index_bytes()}
    if command == "search":
        ef = int(words[1])
        found = np.full((options.query_count, options.k), -1, dtype=np.int32)
        search_ms = peer.search(ef, found)
        found.tofile(words[2])
        return {"ok": True, "searchMs": search_ms}
    if command == "filter":
        if words[1] == "none":
            peer.set_filter(None, None)
            return {"ok": True, "allowed": 0}
        number = int(words[1])
        if filters is None or not 0 <= number < filters.shape[0]:
            raise ValueError(f"no filter column {number} (start the worker with --filters and --filter-columns)")
        peer.set_filter(number, filters[number])
        return {"ok": True, "allowed": int(np.count_nonzero(filters[number]))}
    if command == "overhead":
        # The search loop with a call that does nothing: what the Python loop itself costs.
        call = peer.call_once
        start = time.perf_counter()
        for row in range(options.query_count):
            call(row)
        return {"ok": True, "emptyLoopMs": (time.perf_counter() - start) * 1000}
    raise ValueError(f"unknown command {command!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", required=True)
    parser.add_argument("--directory", required=True)
    parser.add_argument("--dimension", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--query-count", type=int, required=True)
    parser.add_argument("--distance", choices=("Euclid", "Cosine"), required=True)
    parser.add_argument("--m", type=int, required=True)
    parser.add_argument("--ef-construct", type=int, required=True)
    parser.add_argument("--k", type=int, required=True)
    parser.add_argument("--filters")
    parser.add_argument("--filter-columns", type=int, default=0)
    options = parser.parse_args()
    base = np.fromfile(os.path.join(options.directory, "base.f32"), dtype=np.float32).reshape(options.count, options.dimension)
    # The first query-count queries of the file (a filtered run asks for fewer than there are).
    query_values = options.query_count * options.dimension
    queries = np.fromfile(os.path.join(options.directory, "queries.f32"), dtype=np.float32, count=query_values).reshape(options.query_count, options.dimension)
    filters = None
    if options.filters:
        filters = np.fromfile(options.filters, dtype=np.uint8, count=options.filter_columns * options.count).reshape(options.filter_columns, options.count) != 0
    peer = make_peer(options, base, queries, filters)
    reply({"ok": True, "ready": True, "library": options.library, "version": peer.version})
    for line in sys.stdin:
        words = line.split()
        if words == ["close"]:
            peer.close()
            reply({"ok": True})
            return
        try:
            reply(handle(peer, words, options, filters))
        except Exception as error:  # noqa: BLE001 - every failure goes back to the benchmark as a reply
            reply({"ok": False, "error": f"{type(error).__name__}: {error}"})
    peer.close()


if __name__ == "__main__":
    main()
