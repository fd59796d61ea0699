// grpc.health.v1.Health: SERVING once the engine is ready, NOT_SERVING while it loads or closes.
// The whole server ("") and Qdrant's service names are known; any other name is SERVICE_UNKNOWN
// (NOT_FOUND for Check, as the protocol says).
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ServiceHandlers } from '../transport.js';
import type { Engine } from '../../engine/engine.js';
import { Health, HealthCheckResponseSchema, ServingStatus } from '../health-descriptor.js';

const knownServices = new Set(['', 'qdrant.Qdrant', 'qdrant.Collections', 'qdrant.Points', 'qdrant.Snapshots']);

export function healthService(engine: Engine, isClosing: () => boolean): ServiceHandlers<typeof Health> {
  const status = () => create(HealthCheckResponseSchema, { status: engine.isReady && !isClosing() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING });
  return {
    check(request) {
      if (!knownServices.has(request.service)) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
      return status();
    },
    // Minimal Watch: the current status, then the stream ends (clients re-watch).
    async *watch(request) {
      yield knownServices.has(request.service) ? status() : create(HealthCheckResponseSchema, { status: ServingStatus.SERVICE_UNKNOWN });
    },
  };
}
