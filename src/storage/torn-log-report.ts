// What a torn log tail (leveldb-log.ts) lost, in the store's terms: per collection number, the
// operation ids. The lost batch may be cut before its operation-log key; then the id is the one
// after the store's last operation of that collection, since operation ids of one collection
// are consecutive and a batch is all-or-nothing (docs/durability.md).
import type { ClassicLevel } from 'classic-level';
import { collectionPart, collectionStateKey } from './keys.js';
import type { TornTail } from './leveldb-log.js';
import { decodeCollectionState } from './point-records.js';
import type { LostOperations } from './storage-health.js';

const collectionDataTag = 0x10;

export async function lostOperations(database: ClassicLevel<Buffer, Buffer>, tail: TornTail): Promise<LostOperations[]> {
  const byCollection = new Map<number, Set<number>>();
  for (const key of tail.keys) {
    if (key.length < 6 || key[0] !== collectionDataTag) continue;
    const collection = key.readUInt32BE(1);
    const ids = byCollection.get(collection) ?? new Set<number>();
    byCollection.set(collection, ids);
    if (key[5] === collectionPart.operation && key.length === 14) ids.add(Number(key.readBigUInt64BE(6)));
  }
  const lost: LostOperations[] = [];
  for (const [collection, ids] of byCollection) {
    if (ids.size === 0) {
      const state = await database.get(collectionStateKey(collection));
      ids.add((state === undefined ? 0 : decodeCollectionState(state).lastOperationId) + 1);
    }
    lost.push({ collection, operationIds: [...ids].sort((left, right) => left - right) });
  }
  return lost;
}
