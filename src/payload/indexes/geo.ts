// Geo index: points bucketed in a grid of one-degree cells. A shape reads only the cells its
// bounding box covers, then tests each point there with the evaluator's own geometry, so its
// answers are exact and cost grows with the area asked about, not with the collection.
import { SlotSet } from '../../points/slot-set.js';
import type { FieldCondition } from '../conditions.js';
import {
  asGeoPoint,
  insideBoundingBox,
  insidePolygon,
  insideRadius,
  ringBounds,
  type GeoPoint,
} from '../geo.js';
import type { IndexAnswer, PayloadIndex } from './types.js';

const cellsPerLongitude = 361;
const metresPerDegreeLatitude = 111_194.9;

function cellOf(point: GeoPoint): number {
  return (Math.floor(point.lat) + 90) * cellsPerLongitude + (Math.floor(point.lon) + 180);
}

interface Box {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

export class GeoIndex implements PayloadIndex {
  readonly type = 'geo' as const;
  /** cell -> slot -> the slot's points in that cell. */
  private readonly cells = new Map<number, Map<number, GeoPoint[]>>();

  add(slot: number, values: readonly unknown[]): boolean {
    let kept = false;
    for (const value of values) {
      const point = asGeoPoint(value);
      if (!point) continue;
      const cell = cellOf(point);
      let members = this.cells.get(cell);
      if (!members) {
        members = new Map();
        this.cells.set(cell, members);
      }
      const points = members.get(slot);
      if (points) points.push(point);
      else members.set(slot, [point]);
      kept = true;
    }
    return kept;
  }

  remove(slot: number, values: readonly unknown[]): void {
    for (const value of values) {
      const point = asGeoPoint(value);
      if (!point) continue;
      const cell = cellOf(point);
      const members = this.cells.get(cell);
      members?.delete(slot);
      if (members?.size === 0) this.cells.delete(cell);
    }
  }

  /** Cells overlapping the boxes, or every occupied cell when that is fewer to visit. */
  private cellsFor(boxes: Box[] | 'everywhere'): Iterable<number> {
    if (boxes === 'everywhere') return this.cells.keys();
    let cellCount = 0;
    for (const box of boxes) cellCount += (Math.floor(box.maxLat) - Math.floor(box.minLat) + 1) * (Math.floor(box.maxLon) - Math.floor(box.minLon) + 1);
    if (cellCount >= this.cells.size) return this.cells.keys();
    const found: number[] = [];
    for (const box of boxes) {
      for (let lat = Math.floor(box.minLat); lat <= Math.floor(box.maxLat); lat += 1) {
        for (let lon = Math.floor(box.minLon); lon <= Math.floor(box.maxLon); lon += 1) found.push((lat + 90) * cellsPerLongitude + (lon + 180));
      }
    }
    return found;
  }

  /** Bounding boxes covering the shape (two across the antimeridian), and its exact test. */
  private shape(condition: FieldCondition): { boxes: Box[] | 'everywhere'; test: (point: GeoPoint) => boolean } | undefined {
    switch (condition.kind) {
      case 'geo_bounding_box': {
        const { topLeft, bottomRight } = condition.box;
        const latitudes = { minLat: bottomRight.lat, maxLat: topLeft.lat };
        const boxes =
          topLeft.lon <= bottomRight.lon
            ? [{ ...latitudes, minLon: topLeft.lon, maxLon: bottomRight.lon }]
            : [{ ...latitudes, minLon: topLeft.lon, maxLon: 180 }, { ...latitudes, minLon: -180, maxLon: bottomRight.lon }];
        return { boxes: latitudes.minLat > latitudes.maxLat ? [] : boxes, test: (point) => insideBoundingBox(point, condition.box) };
      }
      case 'geo_radius': {
        const { center, radius_m } = condition.circle;
        // One degree of margin on every side keeps the box a superset despite rounding.
        const latitudeSpan = radius_m / metresPerDegreeLatitude + 1;
        const minLat = center.lat - latitudeSpan;
        const maxLat = center.lat + latitudeSpan;
        const widest = Math.max(Math.abs(minLat), Math.abs(maxLat));
        const longitudeSpan = widest >= 89 ? 360 : latitudeSpan / Math.cos((widest * Math.PI) / 180) + 1;
        const test = (point: GeoPoint) => insideRadius(point, condition.circle);
        if (longitudeSpan >= 180) return { boxes: 'everywhere', test };
        const latitudes = { minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat) };
        const boxes: Box[] = [{ ...latitudes, minLon: Math.max(-180, center.lon - longitudeSpan), maxLon: Math.min(180, center.lon + longitudeSpan) }];
        if (center.lon - longitudeSpan < -180) boxes.push({ ...latitudes, minLon: center.lon - longitudeSpan + 360, maxLon: 180 });
        if (center.lon + longitudeSpan > 180) boxes.push({ ...latitudes, minLon: -180, maxLon: center.lon + longitudeSpan - 360 });
        return { boxes, test };
      }
      case 'geo_polygon':
        return { boxes: [ringBounds(condition.polygon.exterior)], test: (point) => insidePolygon(point, condition.polygon) };
      default:
        return undefined;
    }
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    const shape = this.shape(condition);
    if (!shape) return undefined;
    const slots = SlotSet.take(capacity);
    for (const cell of this.cellsFor(shape.boxes)) {
      const members = this.cells.get(cell);
      if (!members) continue;
      for (const [slot, points] of members) if (!slots.has(slot) && points.some(shape.test)) slots.add(slot);
    }
    return { slots, exact: true };
  }

  estimate(condition: FieldCondition): number | undefined {
    const shape = this.shape(condition);
    if (!shape) return undefined;
    let count = 0;
    for (const cell of this.cellsFor(shape.boxes)) count += this.cells.get(cell)?.size ?? 0;
    return count;
  }
}
