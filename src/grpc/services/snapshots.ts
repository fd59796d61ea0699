// qdrant.Snapshots: snapshots are a 501 group (docs/api.md §9); each call answers as its REST route.
import type { ServiceHandlers } from '../transport.js';
import type { Snapshots } from '../descriptors.js';
import type { RestDoor } from '../rest-door.js';
import { notImplementedThroughRest } from './unimplemented.js';

export function snapshotsService(door: RestDoor): ServiceHandlers<typeof Snapshots> {
  return {
    create: notImplementedThroughRest(door, 'POST', '/snapshots'),
    list: notImplementedThroughRest(door, 'GET', '/snapshots'),
    delete: notImplementedThroughRest(door, 'DELETE', '/snapshots/_'),
    createFull: notImplementedThroughRest(door, 'POST', '/snapshots', 'server'),
    listFull: notImplementedThroughRest(door, 'GET', '/snapshots', 'server'),
    deleteFull: notImplementedThroughRest(door, 'DELETE', '/snapshots/_', 'server'),
  };
}
