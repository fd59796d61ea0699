// Which SIMD kernel the addon picked, for the benchmark header.
import { native } from '../../src/native/index.js';

export function instructionSet(): string {
  return native.instructionSet();
}
