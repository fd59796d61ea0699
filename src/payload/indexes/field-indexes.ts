// The payload indexes of one collection: field path -> index. The collection calls `replace`
// on every payload change (and `rebuild` at start); the planner asks `forPath`.
import { parsePath, valuesAt, type Payload, type PayloadPath } from '../path.js';
import type { TextIndexOptions } from '../tokenize.js';
import { createPayloadIndex, textOptionsOf } from './create.js';
import type { IndexDefinition } from './schema.js';
import type { PayloadIndex } from './types.js';

export interface FieldIndex {
  path: PayloadPath;
  definition: IndexDefinition;
  index: PayloadIndex;
  /** Slots holding at least one value this index keeps (payload_schema `points`). */
  slots: Set<number>;
  textOptions: TextIndexOptions | undefined;
}

export class FieldIndexes {
  private readonly fields = new Map<string, FieldIndex>();

  /** Creates (or replaces) the index on `fieldName` and fills it from `payloads`. */
  create(fieldName: string, definition: IndexDefinition, payloads: Iterable<[slot: number, payload: Payload]>): FieldIndex {
    const path = parsePath(fieldName);
    const field: FieldIndex = {
      path,
      definition,
      index: createPayloadIndex(definition),
      slots: new Set(),
      textOptions: definition.type === 'text' ? textOptionsOf(definition) : undefined,
    };
    for (const [slot, payload] of payloads) if (field.index.add(slot, valuesAt(payload, path))) field.slots.add(slot);
    this.fields.set(path.text, field);
    return field;
  }

  /** Drops the index on `fieldName`; false when there was none. */
  drop(fieldName: string): boolean {
    return this.fields.delete(parsePath(fieldName).text);
  }

  forPath(pathText: string): FieldIndex | undefined {
    return this.fields.get(pathText);
  }

  /** The text index options of a path, for the evaluator's tokenised twin. */
  readonly textIndex = (pathText: string): TextIndexOptions | undefined => this.fields.get(pathText)?.textOptions;

  all(): IterableIterator<FieldIndex> {
    return this.fields.values();
  }

  get size(): number {
    return this.fields.size;
  }

  /** Moves `slot` from `before` to `after` (either undefined for insert / delete) in every index. */
  replace(slot: number, before: Payload | undefined, after: Payload | undefined): void {
    for (const field of this.fields.values()) {
      if (before) field.index.remove(slot, valuesAt(before, field.path));
      field.slots.delete(slot);
      if (after && field.index.add(slot, valuesAt(after, field.path))) field.slots.add(slot);
    }
  }
}
