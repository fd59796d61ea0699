// Unknown keys in request bodies (docs/api.md §1.4): ignored everywhere, as Qdrant ignores them,
// except in the objects Qdrant's own deserialiser refuses them in (its `deny_unknown_fields`):
// the payload selector objects here, filters in the filter parser. A typebox object schema with
// these options is such an object; the request validator (src/http/validation.ts) reads the mark.
export const denyUnknownFields = { additionalProperties: false, denyUnknownFields: true } as const;

/** Whether a schema carries the mark above. */
export function deniesUnknownFields(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { denyUnknownFields?: unknown }).denyUnknownFields === true;
}
