// The cluster door (docs/cluster.md §5): in cluster mode every collection route a client calls
// is answered for the whole cluster. It runs as a preHandler, so the route's own schema has
// checked the request already (and the permission hook its credential); then:
// - collection create / delete / info / exists / list answer from the metadata bucket (and the
//   shards' counts);
// - a write is checked against the collection's config, split by shard (shard-routing.ts) and
//   published to the collection's log; the answer waits for JetStream (and, with wait=true, for
//   the replicas);
// - a read goes to the exact distributed merge (src/cluster/distributed-read) over NATS.
// The node's in-process dispatch to its own shard collections (internal-request.ts) passes
// through untouched, as do the routes that name no collection (auth, probes, metrics).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInternalRequest } from '../auth/internal-request.js';
import { applyCollectionUpdate, buildCollectionConfig, ConfigProblem, describeCollectionConfig } from '../engine/collection-config.js';
import { vectorLayoutOf } from '../engine/collection.js';
import { validateCollectionName } from '../engine/collection-name.js';
import { withoutVectorName, withVectorName, type VectorNameConfig } from '../engine/vector-name-config.js';
import { errors, isQuiverError } from '../errors.js';
import { checkCreate, checkUpdate } from '../http/collections.js';
import { success } from '../http/envelope.js';
import { parsePointSelector } from '../http/points.js';
import { checkVectorUpdates, deleteVectorsOperation, parseUpdateOperations } from '../points/batch-request.js';
import { checkUpsertBody } from '../points/upsert-request.js';
import type { ClusterNode } from './cluster-node.js';
import { changedPlacement } from './placement-change.js';
import { distributedRead, isDistributedReadPath } from './distributed-read/index.js';
import { metadataFormat, type ClusterCollectionRecord } from './records.js';
import { newIncarnation } from './names.js';
import { placeShards, shardSettings } from './placement.js';
import { splitOperations, splitSelected, splitUpsert, splitVectorUpdates } from './shard-routing.js';
import type { LoggedOperation } from './shard-replica.js';

type Body = Record<string, unknown>;
type Splitter = (body: Body, shardCount: number) => (Body | undefined)[];

const collectionRoute = '/collections/:collection_name';

/** The write routes: how each one's body is checked and split across shards. */
function writeRoutes(app: FastifyInstance): Map<string, { check(record: ClusterCollectionRecord, body: Body): void; split: Splitter | 'all' }> {
  const limits = app.quiverConfig.limits;
  const batchLimits = { maxPoints: limits.max_points_per_upsert, maxPayloadBytes: limits.max_payload_bytes };
  const selected = { check: (_record: ClusterCollectionRecord, body: Body) => void parsePointSelector(body), split: splitSelected };
  return new Map([
    ['PUT /points', { check: (record, body) => void checkUpsertBody(body as never, vectorLayoutOf(record.config), batchLimits), split: splitUpsert }],
    ['POST /points/delete', selected],
    ['PUT /points/vectors', { check: (record, body) => void checkVectorUpdates(body.points as never, vectorLayoutOf(record.config), limits.max_points_per_upsert), split: splitVectorUpdates }],
    ['POST /points/vectors/delete', { check: (record, body) => void deleteVectorsOperation(body as never, vectorLayoutOf(record.config), ''), split: splitSelected }],
    ['POST /points/payload', selected],
    ['PUT /points/payload', selected],
    ['POST /points/payload/delete', selected],
    ['POST /points/payload/clear', selected],
    ['POST /points/batch', { check: (record, body) => void parseUpdateOperations(body as never, vectorLayoutOf(record.config), batchLimits), split: splitOperations }],
    ['PUT /index', { check: () => undefined, split: 'all' }],
    ['DELETE /index/:field_name', { check: () => undefined, split: 'all' }],
  ] as [string, { check(record: ClusterCollectionRecord, body: Body): void; split: Splitter | 'all' }][]);
}

/** `/collections/{name}/rest?query` -> `/rest` and the query without `wait`. */
function relativeParts(url: string): { path: string; query: string; wait: boolean } {
  const questionMark = url.indexOf('?');
  const pathPart = questionMark < 0 ? url : url.slice(0, questionMark);
  const segments = pathPart.split('/');
  const path = segments.length > 3 ? `/${segments.slice(3).join('/')}` : '';
  const parameters = new URLSearchParams(questionMark < 0 ? '' : url.slice(questionMark + 1));
  const wait = parameters.get('wait') === 'true';
  parameters.delete('wait');
  const rest = parameters.toString();
  return { path, query: rest === '' ? '' : `?${rest}`, wait };
}

function configProblem(error: unknown): unknown {
  if (error instanceof ConfigProblem) return errors.invalidField(error.field, error.message);
  return error;
}

/** Holds the node once its start-up step connected it (the door is registered before). */
export interface ClusterNodeSlot {
  current: ClusterNode | undefined;
}

export function registerClusterDoor(app: FastifyInstance, slot: ClusterNodeSlot): void {
  const node = (): ClusterNode => {
    if (!slot.current) throw errors.engineNotInitialized();
    return slot.current;
  };
  const writes = writeRoutes(app);

  async function record(name: string): Promise<ClusterCollectionRecord> {
    const found = await node().collection(name);
    if (!found) throw errors.collectionNotFound(name);
    return found;
  }

  async function create(name: string, body: unknown): Promise<boolean> {
    validateCollectionName(name, app.quiverConfig.limits.max_collection_name_length);
    const request = checkCreate(body) as Record<string, unknown> & Parameters<typeof buildCollectionConfig>[0];
    let config;
    try {
      config = buildCollectionConfig(request, app.quiverConfig.limits);
    } catch (error) {
      throw configProblem(error);
    }
    if (config === 'vectors_config_required') throw errors.vectorsConfigRequired();
    const nodes = (await node().metadata.liveNodes()).map((beat) => beat.node_id).sort();
    if (nodes.length === 0) nodes.push(node().nodeId);
    // Defaults (docs/cluster.md §1): one shard per live node, two replicas when two nodes live.
    const settings = shardSettings(request, nodes.length);
    const shardNumber = settings.shard_number;
    const replicationFactor = settings.replication_factor;
    const writeConsistencyFactor = settings.write_consistency_factor;
    const placement = placeShards(nodes, settings);
    const incarnation = newIncarnation();
    const clusterRecord: ClusterCollectionRecord = {
      format: metadataFormat,
      name,
      incarnation,
      request,
      config: { ...config, shard_number: shardNumber, replication_factor: replicationFactor, write_consistency_factor: writeConsistencyFactor },
      shard_number: shardNumber,
      replication_factor: replicationFactor,
      write_consistency_factor: writeConsistencyFactor,
      placement,
      payload_indexes: {},
      created_at: new Date().toISOString(),
    };
    if (await node().metadata.collection(name)) throw errors.collectionExists(name);
    await node().createStream(clusterRecord);
    if (!(await node().metadata.createCollection(clusterRecord))) {
      await node().deleteStream(clusterRecord);
      throw errors.collectionExists(name);
    }
    node().remember(clusterRecord);
    // Answer once every shard has a live replica, so the client's next call finds the collection.
    const reader = node().readerFor(clusterRecord);
    const deadline = Date.now() + node().timeoutMs;
    for (let shard = 0; shard < shardNumber; shard += 1) {
      for (;;) {
        try {
          await reader.call(shard, 'GET', '');
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
    return true;
  }

  async function remove(name: string): Promise<boolean> {
    const found = await node().metadata.collection(name);
    if (!found) return false;
    await node().metadata.deleteCollection(name);
    node().forget(name);
    await node().deleteStream(found);
    return true;
  }

  /** CollectionInfo of the whole collection: the shards' counts added up, the config from KV. */
  async function info(name: string): Promise<Record<string, unknown>> {
    const found = await record(name);
    const reader = node().readerFor(found);
    const shards = await Promise.all(Array.from({ length: found.shard_number }, (_, shard) => reader.call<Record<string, unknown>>(shard, 'GET', '')));
    const sum = (field: string) => shards.reduce((total, shard) => total + Number(shard[field] ?? 0), 0);
    const colours = ['green', 'yellow', 'grey', 'red'];
    const status = shards.map((shard) => String(shard.status)).reduce((worst, next) => (colours.indexOf(next) > colours.indexOf(worst) ? next : worst), 'green');
    const payloadSchema: Record<string, Record<string, unknown>> = {};
    for (const shard of shards) {
      for (const [field, schema] of Object.entries((shard.payload_schema ?? {}) as Record<string, Record<string, unknown>>)) {
        const existing = payloadSchema[field];
        if (!existing) payloadSchema[field] = { ...schema };
        else if (typeof schema.points === 'number') existing.points = Number(existing.points ?? 0) + schema.points;
      }
    }
    return {
      ...shards[0],
      status,
      points_count: sum('points_count'),
      indexed_vectors_count: sum('indexed_vectors_count'),
      segments_count: sum('segments_count'),
      config: describeCollectionConfig(found.config),
      payload_schema: payloadSchema,
    };
  }

  /**
   * A config change (PATCH C, a vector name added or removed): checked against the current
   * config (a 400 changes nothing), published to every shard's log so it is ordered with the
   * point writes, then recorded in the metadata, re-applied to the latest record (compare-and-set).
   */
  async function changeConfig(request: FastifyRequest, change: (config: ClusterCollectionRecord['config']) => ClusterCollectionRecord['config']): Promise<number> {
    const name = (request.params as { collection_name: string }).collection_name;
    const found = await record(name);
    try {
      change(found.config);
    } catch (error) {
      throw configProblem(error);
    }
    const { path, query, wait } = relativeParts(request.url);
    const operation: LoggedOperation = { method: request.method, path, query, body: request.body ?? undefined };
    const sequence = await node().publish(found, Array.from({ length: found.shard_number }, () => operation), wait);
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const current = await node().metadata.collectionWithRevision(name);
      if (!current || current.record.incarnation !== found.incarnation) break;
      let next;
      try {
        next = change(current.record.config);
      } catch {
        break;
      }
      if (await node().metadata.updateCollection({ ...current.record, config: next }, current.revision)) break;
    }
    return sequence;
  }

  async function write(request: FastifyRequest, tail: string): Promise<unknown> {
    const name = (request.params as { collection_name: string }).collection_name;
    const used = await record(name);
    try {
      return await writeTo(request, tail, used);
    } catch (error) {
      // The watched record may be a moment old (deleted and created again on another node): a
      // log that refuses the write is looked up again once.
      if (!isQuiverError(error) || error.status !== 503) throw error;
      const fresh = await node().metadata.collection(name);
      if (!fresh) throw errors.collectionNotFound(name);
      if (fresh.incarnation === used.incarnation) throw error;
      node().remember(fresh);
      return writeTo(request, tail, fresh);
    }
  }

  async function writeTo(request: FastifyRequest, tail: string, found: ClusterCollectionRecord): Promise<unknown> {
    const name = found.name;
    const route = writes.get(`${request.method} ${tail}`)!;
    const body = (request.body ?? {}) as Body;
    route.check(found, body);
    const { path, query, wait } = relativeParts(request.url);
    const parts = route.split === 'all' ? Array.from({ length: found.shard_number }, () => body) : route.split(body, found.shard_number);
    const operations = parts.map((part): LoggedOperation | undefined => (part === undefined ? undefined : { method: request.method, path, query, body: request.body === undefined ? undefined : part }));
    if (route.split === 'all' && tail === '/index') await rememberIndex(name, body, true);
    if (tail === '/index/:field_name') await rememberIndex(name, { field_name: (request.params as { field_name: string }).field_name }, false);
    const sequence = await node().publish(found, operations, wait);
    return { operation_id: sequence, status: wait ? 'completed' : 'acknowledged' };
  }

  /** Payload-index definitions are kept in the record too (docs/cluster.md §2). */
  async function rememberIndex(name: string, body: Body, created: boolean): Promise<void> {
    const field = typeof body.field_name === 'string' ? body.field_name : undefined;
    if (field === undefined) return;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const current = await node().metadata.collectionWithRevision(name);
      if (!current) return;
      const indexes = { ...current.record.payload_indexes };
      if (created) indexes[field] = body.field_schema ?? null;
      else delete indexes[field];
      if (await node().metadata.updateCollection({ ...current.record, payload_indexes: indexes }, current.revision)) return;
    }
  }

  /** replicate_shard / drop_replica: the record's placement by compare-and-set (src/cluster/placement-change.ts). */
  async function changePlacement(name: string, body: unknown): Promise<boolean> {
    const live = (await node().metadata.liveNodes()).map((beat) => beat.node_id);
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const current = await node().metadata.collectionWithRevision(name);
      if (!current) throw errors.collectionNotFound(name);
      const placement = changedPlacement(current.record.placement, body, live);
      const next = { ...current.record, placement };
      if (await node().metadata.updateCollection(next, current.revision)) {
        node().remember(next);
        return true;
      }
    }
    throw errors.internal('Collection operation', new Error('the record kept changing'));
  }

  async function read(request: FastifyRequest, method: 'GET' | 'POST'): Promise<unknown> {
    const name = (request.params as { collection_name: string }).collection_name;
    const found = await record(name);
    const { path } = relativeParts(request.url);
    // lookup_from reads another collection's shards; `collection` lets a lookup into this one leave its ids out.
    return distributedRead(node().readerFor(found), method, path, request.body, {
      readerOf: async (other) => node().readerFor(await record(other)),
      collection: name,
    });
  }

  async function answer(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const url = request.routeOptions.url ?? '';
    const method = request.method;
    const name = (request.params as { collection_name?: string } | undefined)?.collection_name;
    if (url === '/cluster' && method === 'GET') return node().status();
    if (url === '/collections' && method === 'GET') {
      const names = (await node().metadata.collections()).map((found) => found.name).sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
      return { collections: names.map((found) => ({ name: found })) };
    }
    if (name === undefined || !url.startsWith(collectionRoute)) return undefined;
    const tail = url.slice(collectionRoute.length);
    const wait = relativeParts(request.url).wait;
    if (tail === '') {
      if (method === 'PUT') return create(name, request.body);
      if (method === 'DELETE') return remove(name);
      if (method === 'GET') return info(name);
      if (method === 'PATCH') {
        const update = checkUpdate(request.body);
        await changeConfig(request, (config) => applyCollectionUpdate(config, update));
        return true;
      }
    }
    if (tail === '/vectors/:vector_name' && (method === 'PUT' || method === 'DELETE')) {
      const vectorName = (request.params as { vector_name: string }).vector_name;
      const limits = app.quiverConfig.limits;
      const sequence = await changeConfig(request, (config) =>
        method === 'PUT' ? withVectorName(config, vectorName, request.body as VectorNameConfig, limits).config : withoutVectorName(config, vectorName).config);
      return { operation_id: sequence, status: wait ? 'completed' : 'acknowledged' };
    }
    if (tail === '/cluster' && method === 'GET') return node().collectionStatus(await record(name));
    if (tail === '/cluster' && method === 'POST') return changePlacement(name, request.body);
    if (tail === '/exists' && method === 'GET') return { exists: (await node().metadata.collection(name)) !== undefined };
    if (writes.has(`${method} ${tail}`)) return write(request, tail);
    const { path } = relativeParts(request.url);
    if ((method === 'GET' || method === 'POST') && isDistributedReadPath(method, path)) return read(request, method);
    void reply;
    throw errors.notImplemented(`${method} ${url} in cluster mode`);
  }

  app.addHook('preHandler', async (request, reply) => {
    if (isInternalRequest(request) || request.is404) return;
    const url = request.routeOptions.url ?? '';
    if (!url.startsWith('/collections') && url !== '/cluster') return;
    let result: unknown;
    try {
      result = await answer(request, reply);
    } catch (error) {
      if (isQuiverError(error)) throw error;
      throw errors.internal('Collection operation', error);
    }
    if (result === undefined) return;
    await reply.send(success(reply, result));
    return reply;
  });
}
