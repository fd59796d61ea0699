import { describe, expect, it } from 'vitest';
import { QuiverError } from '../errors.js';
import { evaluateFormula, parseFormula, type FormulaPoint } from './formula.js';

const point: FormulaPoint = {
  score: (index) => [0.5, 2][index],
  payload: { price: 20, zero: 0, many: [1, 2], one: [7], text: 'x', at: '2024-01-02T00:00:00Z', place: { lon: 13.4, lat: 52.5 }, nested: { n: 3 } },
  matches: (index) => index === 0,
};

function value(formula: unknown, defaults?: Record<string, unknown>): number {
  return evaluateFormula(parseFormula(formula, defaults, 'query'), point, 'query.formula');
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(QuiverError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('formula — each expression kind', () => {
  it('constant — a number is itself', () => expect(value(2.5)).toBe(2.5));

  it('$score — the score in prefetch 0; $score[i] in prefetch i; absent: the default, else 0', () => {
    expect(value('$score')).toBe(0.5);
    expect(value('$score[1]')).toBe(2);
    expect(value('$score[2]')).toBe(0);
    expect(value('$score[2]', { '$score[2]': 9 })).toBe(9);
  });

  it('variable — a payload number, a one-element array, a nested key; missing: the default, else a 400', () => {
    expect(value('price')).toBe(20);
    expect(value('one')).toBe(7);
    expect(value('nested.n')).toBe(3);
    expect(value('absent', { absent: 4 })).toBe(4);
    expect(refusal(() => value('absent'))).toContain('no value found in the payload nor in defaults');
    expect(refusal(() => value('text'))).toContain('expected a number for text');
    expect(refusal(() => value('many'))).toContain('expected a number for many');
  });

  it('condition — 1 when the point matches, else 0', () => {
    expect(value({ sum: [{ key: 'a', match: { value: 1 } }, { key: 'b', match: { value: 2 } }] })).toBe(1);
    const parsed = parseFormula({ mult: [2, { key: 'a', match: { value: 1 } }] }, undefined, 'query');
    expect(parsed.conditions).toEqual([{ key: 'a', match: { value: 1 } }]);
    expect(parsed.conditionFields).toEqual(['query.formula.mult[1]']);
  });

  it('sum, mult, neg, abs — arithmetic; an empty sum is 0, an empty product 1', () => {
    expect(value({ sum: ['$score', 'price', 1] })).toBe(21.5);
    expect(value({ mult: ['$score', 'price'] })).toBe(10);
    expect(value({ sum: [] })).toBe(0);
    expect(value({ mult: [] })).toBe(1);
    expect(value({ neg: 'price' })).toBe(-20);
    expect(value({ abs: { neg: 3 } })).toBe(3);
  });

  it('mult — a zero factor ends the product before later factors are read', () => {
    expect(value({ mult: ['zero', 'absent'] })).toBe(0);
  });

  it('div — a quotient; 0 / anything is 0; by_zero_default for x / 0; else a 400', () => {
    expect(value({ div: { left: 'price', right: 8 } })).toBe(2.5);
    expect(value({ div: { left: 0, right: 0 } })).toBe(0);
    expect(value({ div: { left: 1, right: 'zero', by_zero_default: 7 } })).toBe(7);
    expect(refusal(() => value({ div: { left: 1, right: 0 } }))).toContain('non-finite');
  });

  it('sqrt, pow, exp, log10, ln — the math functions; a non-finite result is a 400', () => {
    expect(value({ sqrt: 16 })).toBe(4);
    expect(value({ pow: { base: 2, exponent: 10 } })).toBe(1024);
    expect(value({ exp: 0 })).toBe(1);
    expect(value({ log10: 1000 })).toBe(3);
    expect(value({ ln: Math.E })).toBeCloseTo(1, 12);
    expect(refusal(() => value({ sqrt: -1 }))).toContain('sqrt(-1)');
    expect(refusal(() => value({ ln: 0 }))).toContain('ln(0)');
    expect(refusal(() => value({ log10: -1 }))).toContain('log10(-1)');
    expect(refusal(() => value({ exp: 1000 }))).toContain('exp(1000)');
  });

  it('geo_distance — haversine metres from the origin to the payload geo point', () => {
    const metres = value({ geo_distance: { origin: { lon: 13.4, lat: 52.6 }, to: 'place' } });
    // 0.1 degree of latitude on the mean Earth radius.
    expect(metres).toBeCloseTo((0.1 * Math.PI * 6_371_008.8) / 180, -1);
    expect(refusal(() => value({ geo_distance: { origin: { lon: 200, lat: 0 }, to: 'place' } }))).toContain('geo_distance.origin');
    expect(refusal(() => value({ geo_distance: { origin: { lon: 0, lat: 0 }, to: 'price' } }))).toContain('expected a geo point');
  });

  it('datetime, datetime_key — microseconds since the epoch', () => {
    expect(value({ datetime: '1970-01-01T00:00:01Z' })).toBe(1_000_000);
    expect(value({ datetime_key: 'at' })).toBe(Date.UTC(2024, 0, 2) * 1000);
    expect(refusal(() => value({ datetime: 'yesterday' }))).toContain('datetime');
  });

  it('lin_decay — 1 at the target, midpoint at one scale away, 0 beyond', () => {
    expect(value({ lin_decay: { x: 10, target: 10, scale: 5 } })).toBe(1);
    expect(value({ lin_decay: { x: 15, target: 10, scale: 5, midpoint: 0.3 } })).toBeCloseTo(0.3, 12);
    expect(value({ lin_decay: { x: 100, target: 10, scale: 5 } })).toBe(0);
  });

  it('exp_decay, gauss_decay — the midpoint at one scale from the target (default target 0)', () => {
    expect(value({ exp_decay: { x: 3, scale: 3, midpoint: 0.25 } })).toBeCloseTo(0.25, 12);
    expect(value({ exp_decay: { x: 6, scale: 3, midpoint: 0.25 } })).toBeCloseTo(0.0625, 12);
    expect(value({ gauss_decay: { x: -2, scale: 2 } })).toBeCloseTo(0.5, 12);
    expect(value({ gauss_decay: { x: 4, scale: 2 } })).toBeCloseTo(0.5 ** 4, 12);
  });

  it('decay — a midpoint or scale out of range is a 400 naming it', () => {
    expect(refusal(() => value({ exp_decay: { x: 1, midpoint: 1 } }))).toContain('exp_decay.midpoint');
    expect(refusal(() => value({ gauss_decay: { x: 1, scale: 0 } }))).toContain('gauss_decay.scale');
    expect(refusal(() => value({ lin_decay: { x: 1, midpoint: 1.5 } }))).toContain('lin_decay.midpoint');
  });

  it('parse — reserved words, stray keys and oversized formulas are 400s naming the field', () => {
    expect(refusal(() => value('$nothing'))).toContain('query.formula');
    expect(refusal(() => value({ sum: [1], mult: [2] }))).toContain('one key');
    expect(refusal(() => value({ div: { left: 1, right: 2, extra: 3 } }))).toContain('query.formula.div.extra');
    expect(refusal(() => value({ sum: Array.from({ length: 2000 }, () => 1) }))).toContain('at most');
    let deep: unknown = 1;
    for (let level = 0; level < 40; level++) deep = { neg: deep };
    expect(refusal(() => value(deep))).toContain('levels deep');
  });
});
