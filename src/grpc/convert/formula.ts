// Formula expressions and relevance feedback -> REST's query JSON (docs/api.md §5.5, §5.7).
import type { Formula, RelevanceFeedbackInput } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../status.js';
import { conditionToJson, definedOnly } from './filter.js';
import { mapToJson } from './values.js';
import { vectorInputToJson } from './vectors.js';

type Expression = NonNullable<Formula['expression']>;

function expressionToJson(expression: Expression | undefined, field: string): unknown {
  const one = expression?.variant;
  const child = (value: Expression | undefined, name: string) => expressionToJson(value, `${field}.${name}`);
  switch (one?.case) {
    case 'constant':
      return one.value;
    case 'variable':
      return one.value;
    case 'condition':
      return conditionToJson(one.value, `${field}.condition`);
    case 'geoDistance':
      return { geo_distance: { origin: { lon: one.value.origin?.lon, lat: one.value.origin?.lat }, to: one.value.to } };
    case 'datetime':
      return { datetime: one.value };
    case 'datetimeKey':
      return { datetime_key: one.value };
    case 'mult':
      return { mult: one.value.mult.map((operand, index) => child(operand, `mult[${index}]`)) };
    case 'sum':
      return { sum: one.value.sum.map((operand, index) => child(operand, `sum[${index}]`)) };
    case 'div':
      return { div: definedOnly({ left: child(one.value.left, 'div.left'), right: child(one.value.right, 'div.right'), by_zero_default: one.value.byZeroDefault }) };
    case 'neg':
    case 'abs':
    case 'sqrt':
    case 'exp':
    case 'log10':
    case 'ln':
      return { [one.case]: child(one.value, one.case) };
    case 'pow':
      return { pow: { base: child(one.value.base, 'pow.base'), exponent: child(one.value.exponent, 'pow.exponent') } };
    case 'expDecay':
    case 'gaussDecay':
    case 'linDecay': {
      const name = one.case === 'expDecay' ? 'exp_decay' : one.case === 'gaussDecay' ? 'gauss_decay' : 'lin_decay';
      const decay = one.value;
      return {
        [name]: definedOnly({
          x: child(decay.x, `${name}.x`),
          target: decay.target ? child(decay.target, `${name}.target`) : undefined,
          scale: decay.scale,
          midpoint: decay.midpoint,
        }),
      };
    }
    default:
      throw invalidArgument(field, 'an expression must set one of its forms');
  }
}

export function formulaToJson(formula: Formula, field: string): Record<string, unknown> {
  return definedOnly({
    formula: expressionToJson(formula.expression, `${field}.expression`),
    defaults: Object.keys(formula.defaults).length > 0 ? mapToJson(formula.defaults, `${field}.defaults`) : undefined,
  });
}

export function relevanceFeedbackToJson(input: RelevanceFeedbackInput, field: string): Record<string, unknown> {
  const strategy = input.strategy?.variant;
  return {
    relevance_feedback: definedOnly({
      target: vectorInputToJson(input.target, `${field}.target`),
      feedback: input.feedback.map((item, index) => ({ example: vectorInputToJson(item.example, `${field}.feedback[${index}].example`), score: item.score })),
      strategy: strategy?.case === 'naive' ? { naive: { a: strategy.value.a, b: strategy.value.b, c: strategy.value.c } } : undefined,
    }),
  };
}
