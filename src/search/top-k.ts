// Bounded top-k selection: keeps the best `limit` of a stream in a binary heap whose root is
// the worst kept entry, so a scan over n candidates costs O(n log k) and O(k) memory instead of
// sorting all n. Ties keep the earlier candidate (lower position), like a stable sort would.
import type { ScoreOrder } from './score-order.js';

export interface Selected {
  position: number;
  score: number;
}

export class TopK {
  private readonly positions: number[] = [];
  private readonly scores: number[] = [];
  private readonly sign: number;

  constructor(
    readonly limit: number,
    order: ScoreOrder,
  ) {
    // Internally larger is better.
    this.sign = order === 'larger_better' ? 1 : -1;
  }

  /** True when a entry (score a, position pa) ranks below entry b. */
  private worse(aScore: number, aPosition: number, bScore: number, bPosition: number): boolean {
    return aScore < bScore || (aScore === bScore && aPosition > bPosition);
  }

  get size(): number {
    return this.positions.length;
  }

  /** The score a new candidate must beat to enter, or undefined while not full. */
  get threshold(): number | undefined {
    return this.positions.length < this.limit ? undefined : this.sign * (this.scores[0] as number);
  }

  offer(position: number, rawScore: number): void {
    if (this.limit <= 0 || Number.isNaN(rawScore)) return;
    const score = this.sign * rawScore;
    const heapPositions = this.positions;
    const heapScores = this.scores;
    if (heapPositions.length < this.limit) {
      heapPositions.push(position);
      heapScores.push(score);
      this.siftUp(heapPositions.length - 1);
      return;
    }
    if (!this.worse(heapScores[0] as number, heapPositions[0] as number, score, position)) return;
    heapPositions[0] = position;
    heapScores[0] = score;
    this.siftDown(0);
  }

  private swap(left: number, right: number): void {
    const position = this.positions[left] as number;
    this.positions[left] = this.positions[right] as number;
    this.positions[right] = position;
    const score = this.scores[left] as number;
    this.scores[left] = this.scores[right] as number;
    this.scores[right] = score;
  }

  private siftUp(start: number): void {
    let child = start;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.worse(this.scores[child] as number, this.positions[child] as number, this.scores[parent] as number, this.positions[parent] as number)) break;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(start: number): void {
    let parent = start;
    const size = this.positions.length;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let worst = parent;
      if (left < size && this.worse(this.scores[left] as number, this.positions[left] as number, this.scores[worst] as number, this.positions[worst] as number)) worst = left;
      if (right < size && this.worse(this.scores[right] as number, this.positions[right] as number, this.scores[worst] as number, this.positions[worst] as number)) worst = right;
      if (worst === parent) return;
      this.swap(parent, worst);
      parent = worst;
    }
  }

  /** The kept entries, best first, with their scores as given. */
  drain(): Selected[] {
    const entries: Selected[] = this.positions.map((position, index) => ({ position, score: this.scores[index] as number }));
    entries.sort((left, right) => right.score - left.score || left.position - right.position);
    for (const entry of entries) entry.score = this.sign * entry.score;
    this.positions.length = 0;
    this.scores.length = 0;
    return entries;
  }
}
