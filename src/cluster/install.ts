// Cluster mode's wiring (docs/cluster.md): the door now (hooks must exist before fastify starts),
// the node as an engine start-up step after the collections (it loads the NATS client lazily,
// so single-node mode never does), its replicas once the engine serves.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import { registerClusterDoor, type ClusterNodeSlot } from './door.js';

export function installCluster(app: FastifyInstance, engine: Engine, config: Config, logger: Logger): ClusterNodeSlot {
  const slot: ClusterNodeSlot = { current: undefined };
  registerClusterDoor(app, slot);
  engine.addStep({
    name: 'cluster',
    open: async () => {
      const { ClusterNode } = await import('./cluster-node.js');
      const node = new ClusterNode(app, config, logger);
      await node.open();
      slot.current = node;
      // The node's shards are created and subscribed before it reports ready; their log is
      // applied through the REST routes, which wait for the engine (shard-replica.ts).
      await node.startReplicas();
    },
    close: async () => {
      await slot.current?.close();
    },
  });
  return slot;
}
