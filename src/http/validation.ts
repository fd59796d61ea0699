// Request validation with TypeBox's compiler instead of Ajv: it understands bigint (ids above
// 2^53 arrive as bigint from the lossless parser) and lets every error name the exact field.
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { errors } from '../errors.js';

/** `/points/0/vector` -> `points[0].vector`, the way users write paths. */
export function describeJsonPointer(pointer: string): string {
  let described = '';
  for (const rawSegment of pointer.split('/').slice(1)) {
    const segment = rawSegment.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(segment)) described += `[${segment}]`;
    else described += described === '' ? segment : `.${segment}`;
  }
  return described;
}

/** `expected integer (got "4")`: the problem TypeBox found, and the value (bigint-safe, cut short). */
export function describeProblem(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectRequiredProperty) return 'missing required field';
  const received = typeof error.value === 'bigint' ? error.value.toString() : JSON.stringify(error.value);
  return `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}${received === undefined ? '' : ` (got ${received.length > 80 ? `${received.slice(0, 77)}...` : received})`}`;
}

const partNames: Record<string, string> = {
  body: 'body',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/**
 * A union's own error says only "expected union value". Look inside: drop the `null` branch (an
 * optional field's "default"), then follow the branch that got deepest into the value, so
 * `limit: 0` reads "expected integer to be greater or equal to 1" and a bad element of a list
 * names its index. Several branches equally deep: the union's error stays.
 */
export function mostSpecificError(error: ValueError, depth = 0): ValueError {
  if (error.type !== ValueErrorType.Union || depth > 16) return error;
  const candidates: ValueError[] = [];
  for (const branch of error.errors) {
    const first = branch.First();
    if (first && first.type !== ValueErrorType.Null) candidates.push(first);
  }
  if (candidates.length === 0) return error;
  const deepest = Math.max(...candidates.map((candidate) => candidate.path.length));
  const best = candidates.filter((candidate) => candidate.path.length === deepest);
  if (best.length !== 1) return error;
  // Only a branch that reached further than the union itself (or the only non-null branch) explains it.
  if (candidates.length > 1 && deepest <= error.path.length) return error;
  return mostSpecificError(best[0]!, depth + 1);
}

/** Builds the registry's 400 for the first problem TypeBox finds in one request part. */
export function validationError(compiled: TypeCheck<TSchema>, value: unknown, part: string) {
  const where = partNames[part] ?? part;
  if (value === undefined || value === null) {
    if (part === 'body') return errors.invalidInput('Validation error in body: a JSON body is required');
  }
  const found = compiled.Errors(value).First();
  const first = found ? mostSpecificError(found) : undefined;
  const field = first ? describeJsonPointer(first.path) : '';
  const problem = first ? describeProblem(first) : 'invalid value';
  return errors.invalidInput(`Validation error in ${where}${field ? ` ${field}` : ''}: ${problem}`);
}

/**
 * Fastify validator compiler. Query strings and path parameters arrive as text, so they are
 * converted to the declared types first ("true" -> true, "5" -> 5); bodies are checked as sent.
 */
export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const compiled = TypeCompiler.Compile(schema);
  const converts = httpPart === 'querystring' || httpPart === 'params' || httpPart === 'headers';
  return (input: unknown) => {
    const value = converts ? Value.Convert(schema, input) : input;
    if (compiled.Check(value)) return { value };
    return { error: validationError(compiled, value, httpPart ?? 'body') };
  };
};
