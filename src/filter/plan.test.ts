// The planner against its slow twin: for random (seeded) payloads and filters, the slots the
// planner returns with indexes — each index type alone, all together, none — equal the slots
// the evaluator accepts point by point.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { FieldIndexes } from '../payload/indexes/field-indexes.js';
import { parseIndexDefinition } from '../payload/indexes/schema.js';
import type { Payload } from '../payload/path.js';
import { matches, type PointView } from './evaluate.js';
import { parseFilter } from './parse.js';
import { estimateCount, filterSlots, type FilterTarget } from './plan.js';
import { SlotSet } from '../points/slot-set.js';
import type { Filter } from './types.js';

class MemoryTarget implements FilterTarget {
  readonly indexes = new FieldIndexes();
  readonly payloads: (Payload | undefined)[] = [];
  private readonly live: SlotSet;

  constructor(readonly slotCapacity: number) {
    this.live = new SlotSet(slotCapacity);
  }

  set(slot: number, payload: Payload | undefined): void {
    this.indexes.replace(slot, this.payloads[slot], payload);
    this.payloads[slot] = payload;
    if (payload) this.live.add(slot);
    else this.live.delete(slot);
  }

  liveSlots(): SlotSet {
    return this.live;
  }

  point(slot: number): PointView | undefined {
    const payload = this.payloads[slot];
    return payload ? { idKey: String(slot * 10), payload, hasVector: (name) => name === '' || (name === 'image' && slot % 3 === 0) } : undefined;
  }

  slotOfIdKey(idKey: string): number | undefined {
    const id = Number(idKey);
    return id % 10 === 0 && id / 10 < this.slotCapacity ? id / 10 : undefined;
  }
}

const words = ['red', 'green', 'blue', 'Red', 'apple', 'banana', 'cherry'];
const uuids = ['550e8400-e29b-41d4-a716-446655440000', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', '6BA7B810-9DAD-11D1-80B4-00C04FD430C8'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function randomPayload(random: () => number): Payload {
  const payload: Payload = {};
  const maybe = (probability: number) => random() < probability;
  const scalar = () => pick(random, [pick(random, words), Math.floor(random() * 6), null, true, 2.5, '3']);
  if (maybe(0.85)) payload.kw = maybe(0.3) ? [scalar(), pick(random, words)] : maybe(0.8) ? pick(random, words) : scalar();
  if (maybe(0.8)) payload.n = maybe(0.25) ? [Math.floor(random() * 20), random() * 20] : maybe(0.1) ? 424242424242424242n : maybe(0.1) ? '7' : Math.floor(random() * 20) - 5;
  if (maybe(0.7)) payload.f = random() * 100 - 50;
  if (maybe(0.8)) payload.flag = maybe(0.1) ? 'true' : maybe(0.2) ? [true, false] : random() < 0.5;
  if (maybe(0.7)) {
    const day = 1 + Math.floor(random() * 28);
    payload.d = maybe(0.1) ? 'not a date' : `2024-03-${String(day).padStart(2, '0')}T${String(Math.floor(random() * 24)).padStart(2, '0')}:00:00${pick(random, ['Z', '+02:00', '-05:00', ''])}`;
  }
  if (maybe(0.7)) payload.u = maybe(0.8) ? pick(random, uuids) : 'not-a-uuid';
  if (maybe(0.8)) {
    const sentence = () => Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(random, words)).join(pick(random, [' ', ', ', '-']));
    payload.t = maybe(0.2) ? [sentence(), sentence()] : sentence();
  }
  if (maybe(0.7)) {
    const point = () => ({ lon: random() * 40 - 20, lat: random() * 40 - 20 });
    payload.g = maybe(0.2) ? [point(), point()] : maybe(0.1) ? { lon: 'x', lat: 1 } : point();
  }
  if (maybe(0.6)) payload.items = Array.from({ length: Math.floor(random() * 3) }, () => ({ kw: pick(random, words), n: Math.floor(random() * 5) }));
  return payload;
}

function randomCondition(random: () => number, depth: number): unknown {
  const roll = random();
  if (depth < 2 && roll < 0.12) return randomFilter(random, depth + 1);
  const field = pick(random, [
    () => ({ key: 'kw', match: { value: pick(random, words) } }),
    () => ({ key: 'kw', match: { any: [pick(random, words), pick(random, words)] } }),
    () => ({ key: 'kw', match: { any: [1, 2] } }),
    () => ({ key: 'kw', match: { except: [pick(random, words)] } }),
    () => ({ key: 'kw', match: { prefix: pick(random, ['r', 'R', 'ba', 'x', '']) } }),
    () => ({ key: 'kw', match: { value: 3 } }),
    () => ({ key: 'n', match: { value: Math.floor(random() * 20) - 5 } }),
    () => ({ key: 'n', match: { value: 424242424242424242n } }),
    () => ({ key: 'n', match: { any: [1, 2, 3] } }),
    () => ({ key: 'n', range: { gte: Math.floor(random() * 10), lt: 5 + Math.floor(random() * 15) } }),
    () => ({ key: 'n', range: { gt: random() * 20 } }),
    () => ({ key: 'f', range: { lte: random() * 100 - 50 } }),
    () => ({ key: 'f', range: { gt: -10, lt: 10 } }),
    () => ({ key: 'flag', match: { value: random() < 0.5 } }),
    () => ({ key: 'd', range: { gte: '2024-03-10T00:00:00Z', lt: '2024-03-20T12:00:00+01:00' } }),
    () => ({ key: 'u', match: { value: pick(random, uuids) } }),
    () => ({ key: 'u', match: { any: [pick(random, uuids), 'not-a-uuid'] } }),
    () => ({ key: 't', match: { text: pick(random, ['red', 'red apple', 'app', 'Banana, cherry']) } }),
    () => ({ key: 't', match: { text_any: pick(random, ['red zebra', 'banana apple']) } }),
    () => ({ key: 't', match: { phrase: pick(random, ['red apple', 'green blue']) } }),
    () => ({ key: 'g', geo_bounding_box: { top_left: { lon: -5, lat: 10 }, bottom_right: { lon: 12, lat: -3 } } }),
    () => ({ key: 'g', geo_radius: { center: { lon: random() * 20 - 10, lat: random() * 20 - 10 }, radius: 500_000 + random() * 1_000_000 } }),
    () => ({ key: 'g', geo_polygon: { exterior: { points: [{ lon: -10, lat: -10 }, { lon: 10, lat: -10 }, { lon: 0, lat: 15 }, { lon: -10, lat: -10 }] } } }),
    () => ({ key: 'kw', values_count: { gte: 2 } }),
    () => ({ is_empty: { key: pick(random, ['kw', 'n', 'items']) } }),
    () => ({ is_null: { key: 'kw' } }),
    () => ({ has_id: [0, 10, 20, 30, 400, 990] }),
    () => ({ has_vector: pick(random, ['image', '', 'missing']) }),
    () => ({ slice: { total: pick(random, [1, 2, 3, 7]), index: 0 } }),
    () => ({ slice: { total: 4, index: Math.floor(random() * 4) } }),
    () => ({ nested: { key: 'items', filter: { must: [{ key: 'kw', match: { value: pick(random, words) } }, { key: 'n', range: { gte: 2 } }] } } }),
    () => ({ key: 'items[].kw', match: { value: pick(random, words) } }),
  ]);
  return field();
}

function randomFilter(random: () => number, depth: number): unknown {
  const clause = () => Array.from({ length: Math.floor(random() * 3) }, () => randomCondition(random, depth));
  const filter: Record<string, unknown> = {};
  if (random() < 0.8) filter.must = clause();
  if (random() < 0.4) filter.should = clause();
  if (random() < 0.4) filter.must_not = clause();
  if (random() < 0.2) filter.min_should = { conditions: clause(), min_count: Math.floor(random() * 2) + 1 };
  return filter;
}

const indexDefinitions: Record<string, unknown> = {
  kw: 'keyword',
  n: 'integer',
  f: 'float',
  flag: 'bool',
  d: 'datetime',
  u: 'uuid',
  t: { type: 'text', tokenizer: 'word', lowercase: true },
  g: 'geo',
  'items[].kw': 'keyword',
};

const slotCount = 400;

function buildTarget(seed: number, indexed: string[], count = slotCount): MemoryTarget {
  const random = mulberry32(seed);
  const target = new MemoryTarget(count + 7);
  for (const field of indexed) target.indexes.create(field, parseIndexDefinition(indexDefinitions[field]), []);
  for (let slot = 0; slot < count; slot += 1) target.set(slot, randomPayload(random));
  // Churn after indexing: updates and deletes must keep the indexes in step.
  for (let slot = 0; slot < count; slot += 7) target.set(slot, random() < 0.5 ? undefined : randomPayload(random));
  return target;
}

function expectedSlots(target: MemoryTarget, filter: Filter | undefined): number[] {
  const expected: number[] = [];
  for (let slot = 0; slot < target.slotCapacity; slot += 1) {
    const point = target.point(slot);
    if (point && (!filter || matches(filter, point, { textIndex: target.indexes.textIndex }))) expected.push(slot);
  }
  return expected;
}

const limits = { maxDepth: 8, maxConditions: 1000 };

describe('filter planning — identical results with and without each index', () => {
  const configurations: [string, string[]][] = [
    ['no index', []],
    ...Object.keys(indexDefinitions).map((field): [string, string[]] => [`${field} index`, [field]]),
    ['every index', Object.keys(indexDefinitions)],
  ];
  it.each(configurations)('%s: planned slots == evaluated slots over 300 random filters', (_name, indexed) => {
    const target = buildTarget(42, indexed);
    const random = mulberry32(7);
    let nonTrivial = 0;
    for (let round = 0; round < 300; round += 1) {
      const raw = round < 60 ? { must: [randomCondition(random, 2)] } : randomFilter(random, 0);
      const filter = parseFilter(raw, limits);
      const expected = expectedSlots(target, filter);
      const planned = filterSlots(filter, target).toArray();
      expect(planned, JSON.stringify(raw, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value))).toEqual(expected);
      if (expected.length > 0 && expected.length < target.liveSlots().size) nonTrivial += 1;
    }
    // The random filters must actually discriminate, or the comparison proves little.
    expect(nonTrivial).toBeGreaterThan(100);
  });

  it('a target that hands out points in runs (FilterTarget.points) gets the slots a point-by-point one gets', () => {
    const target = buildTarget(43, [], 3000);
    const runs: number[] = [];
    const inRuns = Object.assign(Object.create(target) as MemoryTarget, {
      points(slots: readonly number[]) {
        runs.push(slots.length);
        return slots.map((slot) => target.point(slot));
      },
    });
    const random = mulberry32(9);
    for (let round = 0; round < 100; round += 1) {
      const filter = parseFilter(randomFilter(random, 0), limits);
      expect(filterSlots(filter, inRuns).toArray()).toEqual(filterSlots(filter, target).toArray());
    }
    // Unindexed conditions were checked through runs, the longer candidate sets in more than one.
    expect(runs.length).toBeGreaterThan(100);
    expect(Math.max(...runs)).toBe(1024);
  });

  it('without a text index a text match is a substring match; with one it is tokenised', () => {
    const plain = buildTarget(3, []);
    const tokenised = buildTarget(3, ['t']);
    const filter = parseFilter({ must: [{ key: 't', match: { text: 'app' } }] }, limits);
    expect(filterSlots(filter, plain).size).toBeGreaterThan(0);
    expect(filterSlots(filter, tokenised).size).toBe(0);
  });
});

describe('filter planning — count estimates', () => {
  it('is exact when indexes answer the whole filter, and close otherwise', () => {
    const target = buildTarget(11, Object.keys(indexDefinitions));
    const indexedFilter = parseFilter({ must: [{ key: 'kw', match: { value: 'red' } }] }, limits);
    expect(estimateCount(indexedFilter, target)).toBe(filterSlots(indexedFilter, target).size);
    const mixedFilter = parseFilter({ must: [{ key: 'n', range: { gte: 0 } }, { is_empty: { key: 'items' } }] }, limits);
    const exact = filterSlots(mixedFilter, target).size;
    expect(Math.abs(estimateCount(mixedFilter, target) - exact)).toBeLessThanOrEqual(Math.max(5, exact * 0.5));
    expect(estimateCount(undefined, target)).toBe(target.liveSlots().size);
  });
});

describe('filter planning — cost follows the indexed matches', () => {
  function countingReads(target: MemoryTarget): { reads: () => number } {
    let reads = 0;
    const original = target.point.bind(target);
    target.point = (slot: number) => {
      reads += 1;
      return original(slot);
    };
    return { reads: () => reads };
  }

  it('a filter the indexes answer whole reads no payload', () => {
    const target = buildTarget(5, Object.keys(indexDefinitions));
    const counter = countingReads(target);
    const filter = parseFilter(
      {
        must: [{ key: 'kw', match: { any: ['red', 'blue'] } }, { key: 'n', range: { gte: 0 } }],
        should: [{ key: 'flag', match: { value: true } }, { has_id: [10, 20] }],
        must_not: [{ key: 'g', geo_radius: { center: { lon: 0, lat: 0 }, radius: 200_000 } }],
      },
      limits,
    );
    expect(filterSlots(filter, target).size).toBeGreaterThan(0);
    expect(counter.reads()).toBe(0);
  });

  it('unindexed conditions are checked only on the candidates indexed ones leave', () => {
    const target = buildTarget(5, ['kw']);
    const counter = countingReads(target);
    const filter = parseFilter({ must: [{ key: 'kw', match: { value: 'cherry' } }, { is_empty: { key: 'items' } }] }, limits);
    const candidates = filterSlots(parseFilter({ must: [{ key: 'kw', match: { value: 'cherry' } }] }, limits), target).size;
    const result = filterSlots(filter, target).size;
    expect(result).toBeGreaterThan(0);
    expect(counter.reads()).toBe(candidates);
    expect(candidates).toBeLessThan(target.liveSlots().size / 3);
  });
});

describe('SlotSet', () => {
  it('its bytes are the kernel bitset: bit slot % 8 of byte slot >> 3', () => {
    const set = SlotSet.fromSlots(70, [0, 9, 33, 69]);
    const bytes = set.toBytes();
    expect(bytes.length).toBe(9);
    for (let slot = 0; slot < 70; slot += 1) expect(((bytes[slot >> 3]! >> (slot % 8)) & 1) === 1).toBe(set.has(slot));
    expect(set.toArray()).toEqual([0, 9, 33, 69]);
    expect(set.size).toBe(4);
  });
});
