// Which points a write targets: listed ids, or a filter. A filter is evaluated by the
// collection's hooks (collection-hooks.ts), which the filter module provides.
import type { PointId } from '../points/ids.js';

export type PointSelector = { kind: 'ids'; ids: PointId[] } | { kind: 'filter'; filter: unknown };
