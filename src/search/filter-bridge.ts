// The search side of filters: a request's raw filter becomes the slots it allows, planned by
// the filter module (indexes first, payload evaluation for the rest) from the collection's
// filter state (its hooks, see filter/collection-filters.ts). A bad filter is a 400 naming the
// exact part, e.g. `prefetch[0].filter.must[2].range.gt`.
export { allowedSlots } from '../filter/collection-filters.js';
