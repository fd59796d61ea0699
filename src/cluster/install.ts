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
      // Replicas apply through the REST routes, which answer 412 until every step is done.
      void (async () => {
        while (engine.state === 'initializing') await new Promise((resolve) => setTimeout(resolve, 10));
        if (!engine.isReady) return;
        try {
          await node.startReplicas();
        } catch (error) {
          logger.error({ err: error }, 'cluster: could not start following the collections');
        }
      })();
    },
    close: async () => {
      await slot.current?.close();
    },
  });
  return slot;
}
