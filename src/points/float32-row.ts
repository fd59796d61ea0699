// A float32 row as an answer holds it (a dense vector, one row of a multivector). The REST door
// never turns it into JavaScript numbers: serializeJson puts the kernel's JSON text of the row in
// its place (`jsonText`), where building 768 numbers for a 768-d vector and having
// JSON.stringify print them cost 160–196 µs of the JS thread a row, 16–20 ms for a scroll of a
// hundred (bench/README.md, "Vectors out as text"). The gRPC door takes the float32 values as
// they are (`float32Values`: its messages hold float32). Everything else reads the numbers:
// `toJSON` outside serializeJson (JSON.stringify, the lossless writer) and `toNumbers`.
import { ownTextPlaceholder, type OwnJsonText } from '../json/serialize.js';
import { native } from '../native/index.js';
import { float32RowToNumbers, kernelRowLength } from './vectors.js';

export class Float32Row implements OwnJsonText {
  /** `source` must not change while the row is in use: a fresh copy from the kernel, or a write's own array. */
  constructor(
    private readonly source: Float32Array,
    private readonly offset: number,
    readonly length: number,
  ) {}

  /** The row's float32 values (a view: not to be changed). */
  float32Values(): Float32Array {
    return this.source.subarray(this.offset, this.offset + this.length);
  }

  /** The row as plain numbers: each the shortest decimal that reads back as its float32. */
  toNumbers(): number[] {
    return float32RowToNumbers(this.source, this.offset, this.length);
  }

  /** `JSON.stringify(this.toNumbers())`, written by the kernel for rows long enough to pay for the call. */
  jsonText(): string {
    if (this.length < kernelRowLength) return JSON.stringify(this.toNumbers());
    return native.jsonNumberRow(this.source, this.offset, this.length);
  }

  toJSON(): string | number[] {
    return ownTextPlaceholder(this) ?? this.toNumbers();
  }
}
