// Geo values and shapes (docs/api.md §6). A geo value is an object with numeric `lon` and `lat` in
// range; the evaluator and the geo index both test points with the functions here.

export interface GeoPoint {
  lon: number;
  lat: number;
}

export interface GeoBoundingBox {
  topLeft: GeoPoint;
  bottomRight: GeoPoint;
}

export interface GeoRadius {
  center: GeoPoint;
  radius_m: number;
}

export interface GeoPolygon {
  /** Closed rings (first point == last point). */
  exterior: GeoPoint[];
  interiors: GeoPoint[][];
}

/** Mean Earth radius, the one Qdrant's haversine uses. */
const earthRadius_m = 6_371_008.8;

export function isValidCoordinate(point: GeoPoint): boolean {
  return Number.isFinite(point.lon) && Number.isFinite(point.lat) && point.lon >= -180 && point.lon <= 180 && point.lat >= -90 && point.lat <= 90;
}

/** The geo point a payload value holds, or undefined when it is not one. */
export function asGeoPoint(value: unknown): GeoPoint | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { lon, lat } = value as { lon?: unknown; lat?: unknown };
  if (typeof lon !== 'number' || typeof lat !== 'number') return undefined;
  const point = { lon, lat };
  return isValidCoordinate(point) ? point : undefined;
}

function toRadians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

/** Great-circle distance in metres (haversine). */
export function distance_m(from: GeoPoint, to: GeoPoint): number {
  const latitudeDelta = toRadians(to.lat - from.lat);
  const longitudeDelta = toRadians(to.lon - from.lon);
  const a =
    Math.sin(latitudeDelta / 2) ** 2 +
    Math.cos(toRadians(from.lat)) * Math.cos(toRadians(to.lat)) * Math.sin(longitudeDelta / 2) ** 2;
  return 2 * earthRadius_m * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A box whose top-left longitude is east of its bottom-right one crosses the antimeridian. */
export function insideBoundingBox(point: GeoPoint, box: GeoBoundingBox): boolean {
  if (point.lat > box.topLeft.lat || point.lat < box.bottomRight.lat) return false;
  if (box.topLeft.lon <= box.bottomRight.lon) return point.lon >= box.topLeft.lon && point.lon <= box.bottomRight.lon;
  return point.lon >= box.topLeft.lon || point.lon <= box.bottomRight.lon;
}

export function insideRadius(point: GeoPoint, circle: GeoRadius): boolean {
  return distance_m(point, circle.center) <= circle.radius_m;
}

/** Ray casting on plain lon/lat coordinates; a point on an edge counts as inside. */
function insideRing(point: GeoPoint, ring: readonly GeoPoint[]): boolean {
  let inside = false;
  for (let current = 0, previous = ring.length - 1; current < ring.length; previous = current, current += 1) {
    const a = ring[current]!;
    const b = ring[previous]!;
    if (onSegment(point, a, b)) return true;
    if (a.lat > point.lat !== b.lat > point.lat) {
      const crossingLon = ((b.lon - a.lon) * (point.lat - a.lat)) / (b.lat - a.lat) + a.lon;
      if (point.lon < crossingLon) inside = !inside;
    }
  }
  return inside;
}

function onSegment(point: GeoPoint, a: GeoPoint, b: GeoPoint): boolean {
  const cross = (b.lon - a.lon) * (point.lat - a.lat) - (b.lat - a.lat) * (point.lon - a.lon);
  if (Math.abs(cross) > 1e-12) return false;
  return (
    point.lon >= Math.min(a.lon, b.lon) && point.lon <= Math.max(a.lon, b.lon) &&
    point.lat >= Math.min(a.lat, b.lat) && point.lat <= Math.max(a.lat, b.lat)
  );
}

/** Inside the exterior ring and not strictly inside any hole (a hole's edge stays inside). */
export function insidePolygon(point: GeoPoint, polygon: GeoPolygon): boolean {
  if (!insideRing(point, polygon.exterior)) return false;
  for (const hole of polygon.interiors) {
    if (insideRing(point, hole) && !hole.some((_, position) => position > 0 && onSegment(point, hole[position - 1]!, hole[position]!))) return false;
  }
  return true;
}

/** The bounding box of a ring, for index candidate lookups. */
export function ringBounds(ring: readonly GeoPoint[]): { minLon: number; maxLon: number; minLat: number; maxLat: number } {
  let minLon = Infinity;
  let maxLon = -Infinity;
  let minLat = Infinity;
  let maxLat = -Infinity;
  for (const point of ring) {
    minLon = Math.min(minLon, point.lon);
    maxLon = Math.max(maxLon, point.lon);
    minLat = Math.min(minLat, point.lat);
    maxLat = Math.max(maxLat, point.lat);
  }
  return { minLon, maxLon, minLat, maxLat };
}
