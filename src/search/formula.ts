// Formula queries (docs/api.md §5.5): the expression language Qdrant v1.19 calls `Expression`,
// parsed once per request into a tree and evaluated per prefetched point. Values are float64
// throughout, as Qdrant evaluates them; the final score is rounded to float32 on the wire.
//
// Kinds: a number (constant); a string: `$score` / `$score[i]` (the point's score in prefetch
// i, 0 when it is not there unless `defaults` gives one) or a payload key (its number, else the
// default, else a 400); any filter condition (1 when the point matches, else 0); sum, mult, neg,
// abs, div (with `by_zero_default`), sqrt, pow, exp, log10, ln; geo_distance (haversine metres to
// a payload geo point); datetime / datetime_key (microseconds since the epoch); and the decays
// lin_decay, exp_decay, gauss_decay. A result that is not a finite number is a 400.
import { errors } from '../errors.js';
import { parseDatetime } from '../payload/datetime.js';
import { asGeoPoint, distance_m, isValidCoordinate, type GeoPoint } from '../payload/geo.js';
import { isPlainObject, parsePath, PathSyntaxError, valuesAt, type Payload, type PayloadPath } from '../payload/path.js';
import { describeJsonValue } from '../json/describe.js';

/** Bounds on one formula: nodes in the tree and nesting depth (recursion stays shallow). */
export const maxFormulaNodes = 1_024;
export const maxFormulaDepth = 32;

export type DecayKind = 'lin' | 'exp' | 'gauss';

export type Variable = { kind: 'score'; prefetch: number } | { kind: 'payload'; path: PayloadPath };

export type Expression =
  | { kind: 'constant'; value: number }
  | { kind: 'variable'; variable: Variable }
  /** A filter condition; `index` points into the formula's list of conditions. */
  | { kind: 'condition'; index: number }
  | { kind: 'geo_distance'; origin: GeoPoint; path: PayloadPath }
  | { kind: 'datetime'; microseconds: number }
  | { kind: 'datetime_key'; path: PayloadPath }
  | { kind: 'sum' | 'mult'; operands: Expression[] }
  | { kind: 'neg' | 'abs' | 'sqrt' | 'exp' | 'log10' | 'ln'; operand: Expression }
  | { kind: 'div'; left: Expression; right: Expression; byZeroDefault?: number }
  | { kind: 'pow'; base: Expression; exponent: Expression }
  | { kind: 'decay'; decay: DecayKind; x: Expression; target?: Expression; lambda: number };

export interface Formula {
  expression: Expression;
  /** The conditions, as sent, in the order `condition` nodes number them. */
  conditions: unknown[];
  /** Where each condition sits in the request, for the filter module's 400s. */
  conditionFields: string[];
  /** Defaults by canonical variable name (`$score[0]`, payload path text). */
  defaults: Map<string, unknown>;
}

/** What a formula reads of one point. */
export interface FormulaPoint {
  /** The point's score in prefetch `index`, undefined when that prefetch did not return it. */
  score(index: number): number | undefined;
  payload: Payload;
  /** Whether the point matches condition `index`. */
  matches(index: number): boolean;
}

const unaryKinds = ['neg', 'abs', 'sqrt', 'exp', 'log10', 'ln'] as const;
const decayKinds: Record<string, DecayKind> = { lin_decay: 'lin', exp_decay: 'exp', gauss_decay: 'gauss' };
const expressionKeys = new Set(['sum', 'mult', 'div', 'pow', 'geo_distance', 'datetime', 'datetime_key', ...unaryKinds, ...Object.keys(decayKinds)]);

function fail(field: string, problem: string): never {
  throw errors.invalidBodyField(field, problem);
}

function canonicalName(variable: Variable): string {
  return variable.kind === 'score' ? `$score[${variable.prefetch}]` : variable.path.text;
}

function parsePayloadPath(text: string, field: string): PayloadPath {
  try {
    return parsePath(text);
  } catch (error) {
    if (error instanceof PathSyntaxError) fail(field, error.message);
    throw error;
  }
}

/** `$score`, `$score[i]`, or a payload key; other `$` words are reserved and refused. */
export function parseVariable(text: string, field: string): Variable {
  if (text.startsWith('$')) {
    const score = /^\$score(?:\[(\d+)\])?$/.exec(text);
    if (!score) fail(field, `invalid reserved variable: ${text} (only $score and $score[i] exist)`);
    const prefetch = score[1] === undefined ? 0 : Number(score[1]);
    if (!Number.isSafeInteger(prefetch)) fail(field, `invalid prefetch index in ${text}`);
    return { kind: 'score', prefetch };
  }
  return { kind: 'payload', path: parsePayloadPath(text, field) };
}

function decayLambda(kind: DecayKind, midpointInput: unknown, scaleInput: unknown, field: string): number {
  const midpoint = midpointInput === undefined || midpointInput === null ? 0.5 : midpointInput;
  const scale = scaleInput === undefined || scaleInput === null ? 1 : scaleInput;
  if (typeof midpoint !== 'number' || !Number.isFinite(midpoint)) fail(`${field}.midpoint`, 'must be a number');
  if (typeof scale !== 'number' || !Number.isFinite(scale)) fail(`${field}.scale`, 'must be a number');
  if (kind === 'lin' ? midpoint < 0 || midpoint > 1 : midpoint <= 0 || midpoint >= 1) {
    fail(`${field}.midpoint`, kind === 'lin' ? `linear decay midpoint should be in the range [0.0, 1.0], got ${midpoint}` : `decay midpoint should be in the range (0.0, 1.0), got ${midpoint}`);
  }
  if (scale <= 0) fail(`${field}.scale`, `decay scale should be non-zero positive, got ${scale}`);
  if (kind === 'lin') return (1 - midpoint) / scale;
  return kind === 'exp' ? Math.log(midpoint) / scale : Math.log(midpoint) / scale ** 2;
}

class Parser {
  nodes = 0;
  readonly conditions: unknown[] = [];
  readonly conditionFields: string[] = [];

  parse(value: unknown, field: string, depth: number): Expression {
    if (++this.nodes > maxFormulaNodes) fail(field, `a formula holds at most ${maxFormulaNodes} expressions`);
    if (depth > maxFormulaDepth) fail(field, `a formula nests at most ${maxFormulaDepth} levels deep`);
    if (typeof value === 'number' || typeof value === 'bigint') {
      const number = Number(value);
      if (!Number.isFinite(number)) fail(field, 'a constant must be a finite number');
      return { kind: 'constant', value: number };
    }
    if (typeof value === 'string') return { kind: 'variable', variable: parseVariable(value, field) };
    if (!isPlainObject(value)) fail(field, 'must be a number, a variable name, a condition or an expression object');
    const keys = Object.keys(value);
    const kind = keys.find((key) => expressionKeys.has(key));
    if (kind === undefined) {
      // Anything else is a filter condition, checked by the filter module when the stage runs.
      this.conditions.push(value);
      this.conditionFields.push(field);
      return { kind: 'condition', index: this.conditions.length - 1 };
    }
    if (keys.length !== 1) fail(field, `an expression object holds one key, got ${keys.join(', ')}`);
    const inner = value[kind];
    const at = `${field}.${kind}`;
    if (kind === 'sum' || kind === 'mult') {
      if (!Array.isArray(inner)) fail(at, 'must be an array of expressions');
      return { kind, operands: inner.map((operand, position) => this.parse(operand, `${at}[${position}]`, depth + 1)) };
    }
    if ((unaryKinds as readonly string[]).includes(kind)) {
      return { kind: kind as (typeof unaryKinds)[number], operand: this.parse(inner, at, depth + 1) };
    }
    if (kind === 'datetime') {
      const instant = typeof inner === 'string' ? parseDatetime(inner) : undefined;
      if (instant === undefined) fail(at, 'must be an RFC 3339 datetime string');
      return { kind: 'datetime', microseconds: Math.round(instant * 1000) };
    }
    if (kind === 'datetime_key') {
      if (typeof inner !== 'string') fail(at, 'must be a payload key');
      return { kind: 'datetime_key', path: parsePayloadPath(inner, at) };
    }
    const params = isPlainObject(inner) ? inner : fail(at, 'must be an object');
    const allowOnly = (allowed: string[]) => {
      const stray = Object.keys(params).find((key) => !allowed.includes(key));
      if (stray !== undefined) fail(`${at}.${stray}`, 'unknown field');
    };
    if (kind === 'geo_distance') {
      allowOnly(['origin', 'to']);
      const origin = isPlainObject(params.origin) ? { lon: params.origin.lon, lat: params.origin.lat } : undefined;
      if (!origin || typeof origin.lon !== 'number' || typeof origin.lat !== 'number' || !isValidCoordinate(origin as GeoPoint)) {
        fail(`${at}.origin`, 'must be a geo point {"lon", "lat"} within range');
      }
      if (typeof params.to !== 'string') fail(`${at}.to`, 'must be a payload key');
      return { kind: 'geo_distance', origin: origin as GeoPoint, path: parsePayloadPath(params.to, `${at}.to`) };
    }
    if (kind === 'div') {
      allowOnly(['left', 'right', 'by_zero_default']);
      const expression: Expression = { kind: 'div', left: this.parse(params.left, `${at}.left`, depth + 1), right: this.parse(params.right, `${at}.right`, depth + 1) };
      const fallback = params.by_zero_default;
      if (fallback !== undefined && fallback !== null) {
        if (typeof fallback !== 'number' || !Number.isFinite(fallback)) fail(`${at}.by_zero_default`, 'must be a number');
        expression.byZeroDefault = fallback;
      }
      return expression;
    }
    if (kind === 'pow') {
      allowOnly(['base', 'exponent']);
      return { kind: 'pow', base: this.parse(params.base, `${at}.base`, depth + 1), exponent: this.parse(params.exponent, `${at}.exponent`, depth + 1) };
    }
    allowOnly(['x', 'target', 'scale', 'midpoint']);
    const decay = decayKinds[kind]!;
    const expression: Expression = { kind: 'decay', decay, x: this.parse(params.x, `${at}.x`, depth + 1), lambda: decayLambda(decay, params.midpoint, params.scale, at) };
    if (params.target !== undefined && params.target !== null) expression.target = this.parse(params.target, `${at}.target`, depth + 1);
    return expression;
  }
}

/** Parses `formula` and its `defaults`; every problem is a 400 naming its field under `field`. */
export function parseFormula(formula: unknown, defaults: Record<string, unknown> | null | undefined, field: string): Formula {
  const parser = new Parser();
  const expression = parser.parse(formula, `${field}.formula`, 1);
  const named = new Map<string, unknown>();
  for (const [key, value] of Object.entries(defaults ?? {})) named.set(canonicalName(parseVariable(key, `${field}.defaults.${key}`)), value);
  return { expression, conditions: parser.conditions, conditionFields: parser.conditionFields, defaults: named };
}

// ---- evaluation -------------------------------------------------------------------------------

function finite(value: number, description: string, field: string): number {
  if (Number.isFinite(value)) return value;
  return fail(field, `the formula gives a non-finite number: ${description} = ${value}`);
}

/** A payload value (the one value of the key, else its default), converted by `convert`. */
function payloadValue<T>(formula: Formula, point: FormulaPoint, path: PayloadPath, expected: string, convert: (value: unknown) => T | undefined, field: string): T {
  const values = valuesAt(point.payload, path);
  // Several values are an array, which is not a number, a geo point nor a datetime.
  const value = values.length === 0 ? formula.defaults.get(path.text) : values.length === 1 ? values[0] : values;
  if (value === undefined) fail(field, `expected a ${expected} for ${path.text}: no value found in the payload nor in defaults`);
  const converted = convert(value);
  if (converted === undefined) fail(field, `expected a ${expected} for ${path.text}, got ${describeJsonValue(value)}`);
  return converted;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function asMicroseconds(value: unknown): number | undefined {
  const instant = typeof value === 'string' ? parseDatetime(value) : undefined;
  return instant === undefined ? undefined : Math.round(instant * 1000);
}

function decayOf(kind: DecayKind, x: number, target: number, lambda: number): number {
  const difference = x - target;
  if (kind === 'exp') return Math.exp(lambda * Math.abs(difference));
  if (kind === 'gauss') return Math.exp(lambda * difference * difference);
  return Math.max(0, 1 - lambda * Math.abs(difference));
}

/** The formula's value for one point; `field` names the formula in a 400. */
export function evaluateFormula(formula: Formula, point: FormulaPoint, field: string): number {
  const evaluate = (expression: Expression): number => {
    switch (expression.kind) {
      case 'constant':
        return expression.value;
      case 'variable': {
        const variable = expression.variable;
        if (variable.kind === 'score') {
          const score = point.score(variable.prefetch);
          if (score !== undefined) return score;
          const fallback = formula.defaults.get(canonicalName(variable));
          return typeof fallback === 'number' ? fallback : 0;
        }
        return payloadValue(formula, point, variable.path, 'number', asNumber, field);
      }
      case 'condition':
        return point.matches(expression.index) ? 1 : 0;
      case 'geo_distance':
        return distance_m(expression.origin, payloadValue(formula, point, expression.path, 'geo point', asGeoPoint, field));
      case 'datetime':
        return expression.microseconds;
      case 'datetime_key':
        return payloadValue(formula, point, expression.path, 'datetime', asMicroseconds, field);
      case 'sum':
        return expression.operands.reduce((total, operand) => total + evaluate(operand), 0);
      case 'mult': {
        let product = 1;
        for (const operand of expression.operands) {
          const value = evaluate(operand);
          // As Qdrant: a zero factor ends the product (so later factors are not evaluated).
          if (value === 0) return 0;
          product *= value;
        }
        return product;
      }
      case 'neg':
        return -evaluate(expression.operand);
      case 'abs':
        return Math.abs(evaluate(expression.operand));
      case 'sqrt': {
        const value = evaluate(expression.operand);
        return finite(Math.sqrt(value), `sqrt(${value})`, field);
      }
      case 'exp': {
        const value = evaluate(expression.operand);
        return finite(Math.exp(value), `exp(${value})`, field);
      }
      case 'log10': {
        const value = evaluate(expression.operand);
        return finite(Math.log10(value), `log10(${value})`, field);
      }
      case 'ln': {
        const value = evaluate(expression.operand);
        return finite(Math.log(value), `ln(${value})`, field);
      }
      case 'div': {
        const left = evaluate(expression.left);
        if (left === 0) return 0;
        const right = evaluate(expression.right);
        if (right === 0 && expression.byZeroDefault !== undefined) return expression.byZeroDefault;
        return finite(left / right, `${left}/${right}`, field);
      }
      case 'pow': {
        const base = evaluate(expression.base);
        const exponent = evaluate(expression.exponent);
        return finite(base ** exponent, `${base}^${exponent}`, field);
      }
      case 'decay': {
        const x = evaluate(expression.x);
        const target = expression.target ? evaluate(expression.target) : 0;
        return decayOf(expression.decay, x, target, expression.lambda);
      }
    }
  };
  return evaluate(formula.expression);
}
