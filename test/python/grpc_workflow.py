"""The qdrant-client workflow over gRPC (prefer_grpc=True), run by test/grpc/python-client.test.ts.

Usage: python grpc_workflow.py GRPC_PORT. The REST port given to the client is a closed one, so
any call that fell back to REST would fail: every step here goes through the gRPC door.
Prints one line "ok <steps>" and exits 0 when every check holds; a failed check raises.
"""
import sys

from qdrant_client import QdrantClient, models

BIG_ID = 2**64 - 1
UUID = "5c56c793-69f3-4fbf-87e6-c4bf54c28c26"
NAME = "python_grpc"


def main() -> None:
    grpc_port = int(sys.argv[1])
    client = QdrantClient(host="127.0.0.1", port=1, grpc_port=grpc_port, prefer_grpc=True, check_compatibility=False, timeout=30)
    steps = []

    client.create_collection(
        NAME,
        vectors_config={"text": models.VectorParams(size=3, distance=models.Distance.COSINE)},
        sparse_vectors_config={"keywords": models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )
    assert client.collection_exists(NAME)
    info = client.get_collection(NAME)
    assert info.config.params.vectors["text"].size == 3, info.config.params.vectors
    steps.append("create")

    client.upsert(
        NAME,
        wait=True,
        points=[
            models.PointStruct(id=1, vector={"text": [1, 0, 0], "keywords": models.SparseVector(indices=[1, 7], values=[1, 2])}, payload={"color": "red", "rank": 2**53 + 1}),
            models.PointStruct(id=BIG_ID, vector={"text": [0, 1, 0], "keywords": models.SparseVector(indices=[7], values=[1])}, payload={"color": "blue"}),
            models.PointStruct(id=UUID, vector={"text": [0.9, 0.1, 0], "keywords": models.SparseVector(indices=[1], values=[3])}, payload={"color": "red"}),
            models.PointStruct(id=4, vector={"text": [0, 0, 1]}, payload={"color": "green"}),
        ],
    )
    got = client.retrieve(NAME, ids=[BIG_ID, UUID, 1], with_payload=True, with_vectors=True)
    assert [point.id for point in got] == [BIG_ID, UUID, 1], [point.id for point in got]
    assert got[2].payload["rank"] == 2**53 + 1, got[2].payload
    assert got[2].vector["keywords"].indices == [1, 7], got[2].vector
    steps.append("upsert")

    client.create_payload_index(NAME, field_name="color", field_schema=models.PayloadSchemaType.KEYWORD, wait=True)
    assert "color" in client.get_collection(NAME).payload_schema
    steps.append("index")

    red = models.Filter(must=[models.FieldCondition(key="color", match=models.MatchValue(value="red"))])
    found = client.query_points(NAME, query=[1, 0, 0], using="text", query_filter=red, limit=10, with_payload=True).points
    assert [point.id for point in found] == [1, UUID], [point.id for point in found]
    steps.append("filtered-query")

    fused = client.query_points(
        NAME,
        prefetch=[
            models.Prefetch(query=[0, 1, 0], using="text", limit=3),
            models.Prefetch(query=models.SparseVector(indices=[7], values=[1]), using="keywords", limit=3),
        ],
        query=models.FusionQuery(fusion=models.Fusion.RRF),
        limit=2,
    ).points
    assert len(fused) == 2 and fused[0].id == BIG_ID, [point.id for point in fused]
    steps.append("fusion")

    seen, offset = [], None
    while True:
        page, offset = client.scroll(NAME, limit=2, offset=offset)
        seen.extend(point.id for point in page)
        if offset is None:
            break
    assert seen == [1, 4, BIG_ID, UUID], seen
    assert client.count(NAME, exact=True).count == 4
    assert client.count(NAME, count_filter=red, exact=True).count == 2
    steps.append("scroll-count")

    client.set_payload(NAME, payload={"size": 1.5}, points=[4], wait=True)
    assert sorted(client.retrieve(NAME, ids=[4])[0].payload) == ["color", "size"]
    client.overwrite_payload(NAME, payload={"only": True}, points=[4], wait=True)
    assert client.retrieve(NAME, ids=[4])[0].payload == {"only": True}
    client.delete_payload(NAME, keys=["only"], points=[4], wait=True)
    client.clear_payload(NAME, points_selector=[BIG_ID], wait=True)
    assert [point.payload for point in client.retrieve(NAME, ids=[4, BIG_ID])] == [{}, {}]
    steps.append("payload")

    client.delete(NAME, points_selector=models.FilterSelector(filter=red), wait=True)
    client.delete(NAME, points_selector=[BIG_ID], wait=True)
    assert client.count(NAME, exact=True).count == 1
    assert client.delete_collection(NAME)
    assert not client.collection_exists(NAME)
    steps.append("drop")

    print("ok " + ",".join(steps))


if __name__ == "__main__":
    main()
