// The conditions on one payload field, as the filter module's parser builds them (docs/api.md
// §6). They live here, beside the payload indexes that answer them, so that payload/ never
// imports from filter/: the filter tree (filter/types.ts) adds the structural conditions.
import type { GeoBoundingBox, GeoPolygon, GeoRadius } from './geo.js';
import type { PayloadPath } from './path.js';

/** Integers as the payload holds them: a number, or a bigint beyond 2^53. */
export type IntegerValue = number | bigint;

export interface RangeBounds {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export type TextMode = 'text' | 'text_any' | 'phrase';

export type FieldCondition =
  | { kind: 'match_value'; key: PayloadPath; value: string | IntegerValue | boolean }
  | { kind: 'match_any'; key: PayloadPath; values: string[] | IntegerValue[] }
  | { kind: 'match_except'; key: PayloadPath; values: string[] | IntegerValue[] }
  | { kind: 'match_text'; key: PayloadPath; mode: TextMode; text: string }
  | { kind: 'match_prefix'; key: PayloadPath; prefix: string }
  /** Numeric range; payload numbers (and bigints, compared as numbers) only. */
  | { kind: 'range'; key: PayloadPath; bounds: RangeBounds }
  /** Datetime range; bounds in epoch milliseconds, payload RFC 3339 strings only. */
  | { kind: 'datetime_range'; key: PayloadPath; bounds: RangeBounds }
  | { kind: 'geo_bounding_box'; key: PayloadPath; box: GeoBoundingBox }
  | { kind: 'geo_radius'; key: PayloadPath; circle: GeoRadius }
  | { kind: 'geo_polygon'; key: PayloadPath; polygon: GeoPolygon }
  | { kind: 'values_count'; key: PayloadPath; bounds: RangeBounds }
  /** `negated`: the `{"key", "is_empty": false}` form. */
  | { kind: 'is_empty'; key: PayloadPath; negated: boolean }
  | { kind: 'is_null'; key: PayloadPath; negated: boolean };
