// Filter planning: a filter becomes the exact set of live slots it accepts (the kernel's
// `allowed` bitset, the count, the scroll candidates). Conditions a payload index can answer are
// answered there first, narrowing the candidates; whatever is left is checked on the payloads
// of the remaining candidates only. So a selective indexed filter costs time proportional to
// its matches, and a filter on unindexed fields costs one evaluation per live point.
import type { FieldIndexes } from '../payload/indexes/field-indexes.js';
import type { IndexAnswer } from '../payload/indexes/types.js';
import { matchesCondition, type EvaluationOptions, type PointView } from './evaluate.js';
import { SlotSet } from '../points/slot-set.js';
import { isFieldCondition, type Condition, type Filter } from './types.js';

/** What the planner needs from a collection. */
export interface FilterTarget {
  /** Every slot is below this; sets are made this large. */
  readonly slotCapacity: number;
  /** The slots holding a point. The planner never changes the returned set. */
  liveSlots(): SlotSet;
  /** The point in `slot`, for payload evaluation; undefined if the slot is free. */
  point(slot: number): PointView | undefined;
  /**
   * `point` of each of `slots`, their payloads read together where a target stores them
   * (PointTable.viewsReadTogether); a target without it is asked point by point.
   */
  points?(slots: readonly number[]): (PointView | undefined)[];
  /** The slot of a point id (as `pointIdKey` writes it), if the point exists. */
  slotOfIdKey(idKey: string): number | undefined;
  readonly indexes: FieldIndexes;
}

interface Planner {
  target: FilterTarget;
  evaluation: EvaluationOptions;
}

/** Whether indexes alone answer `condition` exactly (checked without running them). */
function indexable(condition: Condition, planner: Planner): boolean {
  if (condition.kind === 'has_id') return true;
  if (condition.kind === 'group') return filterIndexable(condition.filter, planner);
  if (!isFieldCondition(condition)) return false;
  if (condition.kind === 'match_text' && condition.mode === 'phrase') return false;
  const field = planner.target.indexes.forPath(condition.key.text);
  return field !== undefined && field.index.estimate(condition) !== undefined;
}

function filterIndexable(filter: Filter, planner: Planner): boolean {
  const all = [...filter.must, ...filter.should, ...filter.mustNot, ...(filter.minShould?.conditions ?? [])];
  return all.every((condition) => indexable(condition, planner));
}

/** The index's answer for a condition, or undefined when no index can give one. */
function answer(condition: Condition, planner: Planner): IndexAnswer | undefined {
  const { target } = planner;
  if (condition.kind === 'has_id') {
    const slots = SlotSet.take(target.slotCapacity);
    const live = target.liveSlots();
    for (const idKey of condition.ids) {
      const slot = target.slotOfIdKey(idKey);
      if (slot !== undefined && live.has(slot)) slots.add(slot);
    }
    return { slots, exact: true };
  }
  if (condition.kind === 'group') {
    if (!filterIndexable(condition.filter, planner)) return undefined;
    return { slots: resolve(condition.filter, target.liveSlots().clone(), planner), exact: true };
  }
  if (!isFieldCondition(condition)) return undefined;
  const field = target.indexes.forPath(condition.key.text);
  return field?.index.answer(condition, target.slotCapacity);
}

/** Keeps the slots of `candidates` that satisfy at least `minCount` of `answers`. */
function keepAtLeast(candidates: SlotSet, answers: SlotSet[], minCount: number): SlotSet {
  if (minCount <= 0) return candidates;
  const counts = new Uint16Array(candidates.capacity);
  for (const slots of answers) {
    slots.forEach((slot) => {
      if (candidates.has(slot)) counts[slot] = Math.min(65_535, counts[slot]! + 1);
    });
  }
  const kept = SlotSet.take(candidates.capacity);
  candidates.forEach((slot) => {
    if (counts[slot]! >= minCount) kept.add(slot);
  });
  return kept;
}

/**
 * The slots of `universe` (owned: it may be changed and returned) that satisfy `filter`.
 * Indexed answers first, then groups resolved within the narrowed candidates, then the rest
 * checked on payloads.
 */
function resolve(filter: Filter, universe: SlotSet, planner: Planner): SlotSet {
  let candidates = universe;
  const mustChecks: Condition[] = [];
  const groups: Filter[] = [];
  for (const condition of filter.must) {
    if (condition.kind === 'group' && !filterIndexable(condition.filter, planner)) {
      groups.push(condition.filter);
      continue;
    }
    const indexed = answer(condition, planner);
    if (indexed) candidates.intersect(indexed.slots);
    if (!indexed?.exact) mustChecks.push(condition);
    // Answers are fresh sets, read once here: their memory goes back for the next (slot-set.ts).
    indexed?.slots.giveBack();
  }

  const mustNotChecks: Condition[] = [];
  for (const condition of filter.mustNot) {
    const indexed = indexable(condition, planner) ? answer(condition, planner) : undefined;
    if (indexed?.exact) candidates.subtract(indexed.slots);
    else mustNotChecks.push(condition);
    indexed?.slots.giveBack();
  }

  let checkShould = false;
  if (filter.should.length > 0) {
    if (filter.should.every((condition) => indexable(condition, planner))) {
      const union = SlotSet.take(candidates.capacity);
      for (const condition of filter.should) {
        const part = answer(condition, planner)!.slots;
        union.union(part);
        part.giveBack();
      }
      candidates.intersect(union);
      union.giveBack();
    } else {
      checkShould = true;
    }
  }

  let checkMinShould = false;
  if (filter.minShould && filter.minShould.minCount > 0) {
    const { conditions, minCount } = filter.minShould;
    if (conditions.every((condition) => indexable(condition, planner))) {
      const answers = conditions.map((condition) => answer(condition, planner)!.slots);
      candidates = keepAtLeast(candidates, answers, minCount);
      for (const slots of answers) slots.giveBack();
    } else {
      checkMinShould = true;
    }
  }

  for (const group of groups) candidates = resolve(group, candidates, planner);

  if (mustChecks.length === 0 && mustNotChecks.length === 0 && !checkShould && !checkMinShould) return candidates;
  const kept = SlotSet.take(candidates.capacity);
  const { target, evaluation } = planner;
  forEachPoint(target, candidates, (slot, point) => {
    if (!mustChecks.every((condition) => matchesCondition(condition, point, evaluation))) return;
    if (mustNotChecks.some((condition) => matchesCondition(condition, point, evaluation))) return;
    if (checkShould && !filter.should.some((condition) => matchesCondition(condition, point, evaluation))) return;
    if (checkMinShould) {
      const { conditions, minCount } = filter.minShould!;
      let satisfied = 0;
      for (let position = 0; position < conditions.length && satisfied < minCount; position += 1) {
        if (matchesCondition(conditions[position]!, point, evaluation)) satisfied += 1;
      }
      if (satisfied < minCount) return;
    }
    kept.add(slot);
  });
  return kept;
}

/** How many candidates' points are asked for at once (`FilterTarget.points`). */
const pointsAtOnce = 1024;

/** `visit` of each point of `slots` in slot order (free slots skipped), asked for in runs. */
function forEachPoint(target: FilterTarget, slots: SlotSet, visit: (slot: number, point: PointView) => void): void {
  if (!target.points) {
    slots.forEach((slot) => {
      const point = target.point(slot);
      if (point) visit(slot, point);
    });
    return;
  }
  const run: number[] = [];
  const visitRun = () => {
    const points = target.points!(run);
    run.forEach((slot, position) => {
      const point = points[position];
      if (point) visit(slot, point);
    });
    run.length = 0;
  };
  slots.forEach((slot) => {
    run.push(slot);
    if (run.length === pointsAtOnce) visitRun();
  });
  visitRun();
}

function plannerFor(target: FilterTarget): Planner {
  return { target, evaluation: { textIndex: target.indexes.textIndex } };
}

/**
 * The exact set of live slots `filter` accepts (all live slots without a filter). Its
 * `toBytes()` is the kernel's `allowed` argument.
 */
export function filterSlots(filter: Filter | undefined, target: FilterTarget): SlotSet {
  const live = target.liveSlots().clone();
  if (!filter) return live;
  return resolve(filter, live, plannerFor(target));
}

/** The evaluation options matching a target's indexes (tokenised text where a text index is). */
export function evaluationOptionsFor(target: FilterTarget): EvaluationOptions {
  return plannerFor(target).evaluation;
}

const estimateSampleSize = 256;

/**
 * `count` with `exact: false`: exact when indexes answer the whole filter; otherwise the
 * candidates the indexed must-conditions leave, scaled by the share of an evenly spread sample
 * of them that passes the whole filter.
 */
export function estimateCount(filter: Filter | undefined, target: FilterTarget): number {
  const planner = plannerFor(target);
  const live = target.liveSlots();
  if (!filter) return live.size;
  if (filterIndexable(filter, planner)) return resolve(filter, live.clone(), planner).size;
  const candidates = live.clone();
  for (const condition of filter.must) {
    if (!indexable(condition, planner)) continue;
    const slots = answer(condition, planner)!.slots;
    candidates.intersect(slots);
    slots.giveBack();
  }
  const slots = candidates.toArray();
  if (slots.length <= estimateSampleSize) return resolve(filter, candidates, planner).size;
  const sample = SlotSet.take(target.slotCapacity);
  const stride = slots.length / estimateSampleSize;
  for (let position = 0; position < estimateSampleSize; position += 1) sample.add(slots[Math.floor(position * stride)]!);
  const passed = resolve(filter, sample, planner).size;
  return Math.round((passed / estimateSampleSize) * slots.length);
}
