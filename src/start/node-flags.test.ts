import { describe, expect, it } from 'vitest';
import { serverNodeFlags, startedWithServerFlags } from './node-flags.js';

describe('node flags — the shipped command', () => {
  it('only the shipped flags, in order and with no NODE_OPTIONS, count as the command the code cache is made for', () => {
    expect(startedWithServerFlags(serverNodeFlags, undefined)).toBe(true);
    expect(startedWithServerFlags(serverNodeFlags, '  ')).toBe(true);
    expect(startedWithServerFlags([], undefined)).toBe(false);
    expect(startedWithServerFlags([...serverNodeFlags, '--cpu-prof'], undefined)).toBe(false);
    expect(startedWithServerFlags(serverNodeFlags, '--max-old-space-size=3000')).toBe(false);
    expect(startedWithServerFlags(['--max-semi-space-size=32'], undefined)).toBe(false);
  });
});
