"""Multivectors (docs/api.md §20) driven by qdrant-client, run by test/multivector-python.test.ts.

Usage: python multivector_workflow.py REST_PORT GRPC_PORT. The same workflow runs twice: over REST
(prefer_grpc=False), then over gRPC (prefer_grpc=True). Each run creates a collection with a dense
vector and a MaxSim multivector, upserts number[][] matrices, and checks a multivector query, the
"dense first, then multivector rerank" prefetch and with_vectors against brute-force MaxSim
computed here. Prints one line "ok <steps>" and exits 0 when every check holds.
"""
import math
import random
import sys

from qdrant_client import QdrantClient, models

DIMENSION = 4


def dot(left, right):
    return sum(a * b for a, b in zip(left, right))


def max_sim(query, document):
    return sum(max(dot(row, stored) for stored in document) for row in query)


def reference_top(query, documents, limit, keep=lambda _id: True):
    scored = [(point_id, max_sim(query, document)) for point_id, document in documents.items() if keep(point_id)]
    scored.sort(key=lambda hit: (-hit[1], hit[0]))
    return scored[:limit]


def check_hits(points, expected):
    assert [point.id for point in points] == [hit[0] for hit in expected], ([point.id for point in points], expected)
    for point, (_id, score) in zip(points, expected):
        assert math.isclose(point.score, score, rel_tol=1e-4, abs_tol=1e-4), (point.score, score)


def workflow(client: QdrantClient, name: str, rng: random.Random) -> None:
    client.create_collection(
        name,
        vectors_config={
            "dense": models.VectorParams(size=DIMENSION, distance=models.Distance.DOT),
            "colbert": models.VectorParams(
                size=DIMENSION,
                distance=models.Distance.DOT,
                multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM),
            ),
        },
    )
    info = client.get_collection(name)
    assert info.config.params.vectors["colbert"].multivector_config.comparator == models.MultiVectorComparator.MAX_SIM
    documents = {
        point_id: [[round(rng.uniform(-1, 1), 3) for _ in range(DIMENSION)] for _ in range(1 + point_id % 5)]
        for point_id in range(1, 41)
    }
    client.upsert(
        name,
        wait=True,
        points=[
            models.PointStruct(id=point_id, vector={"dense": document[0], "colbert": document}, payload={"even": point_id % 2 == 0})
            for point_id, document in documents.items()
        ],
    )
    query = [[round(rng.uniform(-1, 1), 3) for _ in range(DIMENSION)] for _ in range(3)]
    found = client.query_points(name, query=query, using="colbert", limit=5).points
    check_hits(found, reference_top(query, documents, 5))

    filtered = client.query_points(
        name,
        query=query,
        using="colbert",
        limit=5,
        query_filter=models.Filter(must=[models.FieldCondition(key="even", match=models.MatchValue(value=True))]),
    ).points
    check_hits(filtered, reference_top(query, documents, 5, lambda point_id: point_id % 2 == 0))

    dense = [0.5, -0.25, 1.0, 0.0]
    candidates = sorted(documents, key=lambda point_id: (-dot(dense, documents[point_id][0]), point_id))[:15]
    reranked = client.query_points(
        name,
        prefetch=models.Prefetch(query=dense, using="dense", limit=15),
        query=query,
        using="colbert",
        limit=5,
    ).points
    check_hits(reranked, reference_top(query, documents, 5, lambda point_id: point_id in candidates))

    [record] = client.retrieve(name, ids=[7], with_vectors=True)
    rows = record.vector["colbert"]
    assert len(rows) == len(documents[7]), rows
    for row, stored in zip(rows, documents[7]):
        assert all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(row, stored)), (row, stored)
    client.delete_collection(name)


def main() -> None:
    rest_port = int(sys.argv[1])
    grpc_port = int(sys.argv[2])
    rng = random.Random(19)
    steps = []
    rest = QdrantClient(host="127.0.0.1", port=rest_port, grpc_port=1, prefer_grpc=False, check_compatibility=False, timeout=30)
    workflow(rest, "python_multivector_rest", rng)
    steps.append("rest")
    grpc = QdrantClient(host="127.0.0.1", port=1, grpc_port=grpc_port, prefer_grpc=True, check_compatibility=False, timeout=30)
    workflow(grpc, "python_multivector_grpc", rng)
    steps.append("grpc")
    print("ok " + ",".join(steps))


if __name__ == "__main__":
    main()
