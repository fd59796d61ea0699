"""LangChain, LlamaIndex and Haystack against QuiverDB, run by test/frameworks.test.ts.

Usage: python frameworks_workflow.py REST_PORT GRPC_PORT rest|grpc. Each framework's own Qdrant
integration creates its collection, writes documents with metadata, retrieves (plain and with a
metadata filter), deletes, and reopens or counts, with the Python client set to prefer gRPC or
not. Embeddings are the frameworks' own deterministic test embeddings, so no model is needed.
Prints one line "ok <steps>" and exits 0 when every check holds; a failed check raises.
"""
import asyncio
import sys

from qdrant_client import AsyncQdrantClient, QdrantClient, models

REST_PORT = int(sys.argv[1])
GRPC_PORT = int(sys.argv[2])
PREFER_GRPC = sys.argv[3] == "grpc"
URL = f"http://127.0.0.1:{REST_PORT}"
CONNECTION = {"url": URL, "grpc_port": GRPC_PORT, "prefer_grpc": PREFER_GRPC}
SUFFIX = "grpc" if PREFER_GRPC else "rest"


def langchain() -> None:
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_qdrant import QdrantVectorStore

    embedding = DeterministicFakeEmbedding(size=32)
    name = f"langchain_{SUFFIX}"
    documents = [Document(page_content=f"document {i}", metadata={"n": i, "kind": "cat" if i % 2 else "dog"}) for i in range(40)]
    store = QdrantVectorStore.from_documents(documents, embedding, collection_name=name, force_recreate=True, **CONNECTION)
    # The deterministic embedding of a text is the same each time: the document itself is nearest.
    found = store.similarity_search("document 7", k=3)
    assert found[0].metadata["n"] == 7, [d.metadata for d in found]
    dog = models.Filter(must=[models.FieldCondition(key="metadata.kind", match=models.MatchValue(value="dog"))])
    scored = store.similarity_search_with_score("document 7", k=4, filter=dog)
    assert len(scored) == 4 and all(d.metadata["kind"] == "dog" for d, _ in scored), scored
    diverse = store.max_marginal_relevance_search("document 9", k=3, fetch_k=10)
    assert len(diverse) == 3 and diverse[0].metadata["n"] == 9, [d.metadata for d in diverse]
    ids = store.add_texts(["an extra text"], metadatas=[{"n": 999}])
    assert [d.metadata["n"] for d in store.get_by_ids(ids)] == [999]
    store.delete(ids)
    assert store.get_by_ids(ids) == []
    reopened = QdrantVectorStore.from_existing_collection(embedding=embedding, collection_name=name, **CONNECTION)
    assert reopened.similarity_search("document 12", k=1)[0].metadata["n"] == 12


def llamaindex() -> None:
    from llama_index.core import Document, Settings, StorageContext, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.vector_stores import MetadataFilter, MetadataFilters
    from llama_index.vector_stores.qdrant import QdrantVectorStore

    Settings.embed_model = MockEmbedding(embed_dim=16)
    name = f"llamaindex_{SUFFIX}"
    client = QdrantClient(**CONNECTION)
    aclient = AsyncQdrantClient(**CONNECTION)
    if client.collection_exists(name):
        client.delete_collection(name)
    store = QdrantVectorStore(client=client, aclient=aclient, collection_name=name)
    documents = [Document(text=f"text {i}", metadata={"group": "b" if i % 3 == 0 else "a", "n": i}) for i in range(30)]
    index = VectorStoreIndex.from_documents(documents, storage_context=StorageContext.from_defaults(vector_store=store))
    assert len(index.as_retriever(similarity_top_k=4).retrieve("text 5")) == 4
    only_b = MetadataFilters(filters=[MetadataFilter(key="group", value="b")])
    filtered = index.as_retriever(similarity_top_k=20, filters=only_b).retrieve("text 5")
    assert sorted(node.metadata["n"] for node in filtered) == list(range(0, 30, 3)), [node.metadata for node in filtered]
    index.delete_ref_doc(documents[0].doc_id)
    assert client.count(name).count == 29

    async def asynchronous() -> int:
        return len(await index.as_retriever(similarity_top_k=3).aretrieve("text 7"))

    assert asyncio.run(asynchronous()) == 3


def haystack() -> None:
    from haystack import Document
    from haystack_integrations.components.retrievers.qdrant import QdrantEmbeddingRetriever
    from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

    store = QdrantDocumentStore(url=URL, grpc_port=GRPC_PORT, prefer_grpc=PREFER_GRPC, index=f"haystack_{SUFFIX}", embedding_dim=8, recreate_index=True, progress_bar=False)
    documents = [Document(content=f"doc {i}", embedding=[float((i * k) % 7) + 0.5 for k in range(1, 9)], meta={"g": i % 2}) for i in range(20)]
    assert store.write_documents(documents) == 20
    assert store.count_documents() == 20
    retriever = QdrantEmbeddingRetriever(document_store=store, top_k=3)
    found = retriever.run(query_embedding=[1.0] * 8, filters={"field": "meta.g", "operator": "==", "value": 1})["documents"]
    assert len(found) == 3 and all(d.meta["g"] == 1 for d in found), found
    assert len(store.filter_documents(filters={"field": "meta.g", "operator": "==", "value": 0})) == 10
    store.delete_documents([documents[0].id])
    assert store.count_documents() == 19


def main() -> None:
    steps = []
    for name, workflow in (("langchain", langchain), ("llamaindex", llamaindex), ("haystack", haystack)):
        workflow()
        steps.append(name)
    print("ok " + ",".join(steps))


if __name__ == "__main__":
    main()
