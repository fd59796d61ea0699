// A point's whole payload as an answer holds it (`with_payload: true`, Qdrant's clients' default
// for searches, queries and scrolls): the point table's stored text, which is serializeJson's text
// of the payload as the write stored it (src/engine/point-table.ts). The REST door writes that
// text in place (serializeJson's own-text hook, as rows of vectors do: float32-row.ts) instead of
// decoding each payload with JSON.parse and writing it again with JSON.stringify (bench/README.md,
// "Payloads out as stored text"). Everything else reads the value: `toJSON` outside
// serializeJson (the gRPC door's jsonShaped, the lossless writer) and `value`, which decode it.
import { parseJson } from '../json/parse.js';
import { ownTextPlaceholder, type OwnJsonText } from '../json/serialize.js';
import type { Payload } from './selectors.js';

export class StoredPayload implements OwnJsonText {
  private decoded: Payload | undefined;

  /** `text`: the payload's stored text, serializeJson's text of it. */
  constructor(private readonly text: string) {}

  /** The payload value, decoded from the text on first read. */
  value(): Payload {
    return (this.decoded ??= parseJson(this.text) as Payload);
  }

  /** The stored text: serializeJson(this.value()), without the decode and the write. */
  jsonText(): string {
    return this.text;
  }

  toJSON(): string | Payload {
    return ownTextPlaceholder(this) ?? this.value();
  }
}
