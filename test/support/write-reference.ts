// The slow reference for staged writes (docs/api.md §10): a plain map of points that applies
// each operation in order, the obvious way, for tests to compare the server's state with.
// Filters are given as predicates beside the JSON filter the server gets.
export type Vectors = Record<string, number[]>;
export interface ReferencePoint {
  payload: Record<string, unknown>;
  vectors: Vectors;
}
export type Selection = { ids: number[] } | { where: (id: number, point: ReferencePoint) => boolean };

export class WriteReference {
  readonly points = new Map<number, ReferencePoint>();

  /** An independent copy, to compare a state with and without an operation. */
  clone(): WriteReference {
    const copy = new WriteReference();
    for (const [id, point] of this.points) copy.points.set(id, structuredClone(point));
    return copy;
  }

  private selected(selection: Selection): number[] {
    if ('ids' in selection) return selection.ids.filter((id) => this.points.has(id));
    return [...this.points].filter(([id, point]) => selection.where(id, point)).map(([id]) => id);
  }

  upsert(points: { id: number; vector: Vectors; payload?: Record<string, unknown> }[], options: { mode?: 'upsert' | 'insert_only' | 'update_only'; only?: (id: number, point: ReferencePoint) => boolean } = {}): void {
    for (const point of points) {
      const existing = this.points.get(point.id);
      if (options.mode === 'insert_only' && existing) continue;
      if (options.mode === 'update_only' && !existing) continue;
      if (existing && options.only && !options.only(point.id, existing)) continue;
      this.points.set(point.id, { payload: structuredClone(point.payload ?? {}), vectors: structuredClone(point.vector) });
    }
  }

  delete(selection: Selection): void {
    for (const id of this.selected(selection)) this.points.delete(id);
  }

  setPayload(selection: Selection, patch: Record<string, unknown>): void {
    for (const id of this.selected(selection)) Object.assign(this.points.get(id)!.payload, structuredClone(patch));
  }

  overwritePayload(selection: Selection, payload: Record<string, unknown>): void {
    for (const id of this.selected(selection)) this.points.get(id)!.payload = structuredClone(payload);
  }

  deletePayloadKeys(ids: number[], keys: string[]): void {
    for (const id of this.selected({ ids })) for (const key of keys) delete this.points.get(id)!.payload[key];
  }

  clearPayload(selection: Selection): void {
    for (const id of this.selected(selection)) this.points.get(id)!.payload = {};
  }

  updateVectors(points: { id: number; vector: Vectors }[], only?: (id: number, point: ReferencePoint) => boolean): void {
    for (const point of points) {
      const existing = this.points.get(point.id);
      if (!existing) throw new Error(`reference: point ${point.id} does not exist`);
      if (only && !only(point.id, existing)) continue;
      Object.assign(existing.vectors, structuredClone(point.vector));
    }
  }

  deleteVectors(selection: Selection, names: string[]): void {
    for (const id of this.selected(selection)) for (const name of names) delete this.points.get(id)!.vectors[name];
  }

  /** The state as sorted records, the shape `retrieve` with payload and vectors answers. */
  records(): { id: number; payload: Record<string, unknown>; vector: Vectors }[] {
    return [...this.points]
      .sort(([a], [b]) => a - b)
      .map(([id, point]) => ({ id, payload: point.payload, vector: point.vectors }));
  }
}
