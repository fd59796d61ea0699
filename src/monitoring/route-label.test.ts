// Rules for the route label of the request metrics (metrics.ts, docs/api.md §13.2): a template,
// never a raw path, and the same label however many times a route is asked for.
import { describe, expect, it } from 'vitest';
import { routeTemplateLabel, unmatchedRoute } from './metrics.js';

describe('route template label', () => {
  it('parameters become braces, and a repeat gives the same label', () => {
    expect(routeTemplateLabel('/collections/:collection_name/points/:id')).toBe('/collections/{collection_name}/points/{id}');
    expect(routeTemplateLabel('/collections/:collection_name/points/:id')).toBe('/collections/{collection_name}/points/{id}');
    expect(routeTemplateLabel('/healthz')).toBe('/healthz');
  });

  it('a request that matched no route is labelled unmatched', () => {
    expect(routeTemplateLabel(undefined)).toBe(unmatchedRoute);
  });
});
