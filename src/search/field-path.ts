// Where a part of a query request sits, for error messages: `prefetch[0].filter`, or plain
// `filter` at the root (whose own path is '').

export function fieldPath(prefix: string, field: string): string {
  return prefix === '' ? field : `${prefix}.${field}`;
}
