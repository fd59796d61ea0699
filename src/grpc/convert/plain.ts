// Configuration messages whose REST shape is the proto's own (hnsw_config, optimizers_config,
// wal_config, strict_mode_config...): field names in snake_case, int64 as JSON integers.
import { isMessage, type Message } from '@bufbuild/protobuf';
import { jsonInteger } from '../../json/json-shaped.js';

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return jsonInteger(value);
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value === 'object' && value !== null) {
    if (isMessage(value)) return plainMessage(value);
    if ('case' in value) {
      // A oneof group: its one set member, as REST writes it (the member's value).
      const group = value as { case?: string; value?: unknown };
      return group.case === undefined ? undefined : plainValue(group.value);
    }
    const json: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) json[key] = plainValue(item);
    return json;
  }
  return value;
}

/** The message's set fields as a snake_case JSON object; undefined when none is set. */
export function plainMessage(message: Message | undefined): Record<string, unknown> | undefined {
  if (!message) return undefined;
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (key === '$typeName' || key === '$unknown' || value === undefined) continue;
    const plain = plainValue(value);
    if (plain !== undefined) json[snakeCase(key)] = plain;
  }
  return json;
}
