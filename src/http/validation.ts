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
  const expected = allowedLiterals(error);
  const message = expected ?? `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`;
  return `${message}${received === undefined ? '' : ` (got ${received.length > 80 ? `${received.slice(0, 77)}...` : received})`}`;
}

/** `expected one of "weak", "medium", "strong"` for a union of literals (an enum), else undefined. */
function allowedLiterals(error: ValueError): string | undefined {
  if (error.type !== ValueErrorType.Union) return undefined;
  const branches = (error.schema as { anyOf?: { const?: unknown; type?: string }[] }).anyOf;
  if (!branches || !branches.every((branch) => 'const' in branch || branch.type === 'null')) return undefined;
  const values = branches.filter((branch) => 'const' in branch).map((branch) => JSON.stringify(branch.const));
  return values.length > 0 ? `expected one of ${values.join(', ')}` : undefined;
}

const partNames: Record<string, string> = {
  body: 'body',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/** Error kinds that mean "the value is not of this branch's kind at all". */
const kindMismatches = new Set<ValueErrorType>([
  ValueErrorType.Array,
  ValueErrorType.BigInt,
  ValueErrorType.Boolean,
  ValueErrorType.Integer,
  ValueErrorType.Literal,
  ValueErrorType.Null,
  ValueErrorType.Number,
  ValueErrorType.Object,
  ValueErrorType.String,
  ValueErrorType.Undefined,
]);

function segmentCount(path: string): number {
  return path === '' ? 0 : path.split('/').length - 1;
}

/** Whether a branch refused the value's very shape: another kind, or an object of other keys. */
function branchMissesShape(union: ValueError, branch: ValueError): boolean {
  if (branch.path === union.path) return kindMismatches.has(branch.type);
  const parent = branch.path.slice(0, branch.path.lastIndexOf('/'));
  return parent === union.path && (branch.type === ValueErrorType.ObjectRequiredProperty || branch.type === ValueErrorType.ObjectAdditionalProperties);
}

/**
 * A union's own error says only "expected union value". Look inside: keep the branches that
 * recognised the value's shape (same kind, same keys; the `null` of an optional field never
 * does), and when one remains, or one got deepest into the value, report its error instead, so
 * `limit: 0` reads "expected integer to be greater or equal to 1" and a bad list element names
 * its index. For `X or null` X's error is reported. Otherwise the union's error stays.
 */
export function mostSpecificError(error: ValueError, depth = 0): ValueError {
  if (error.type !== ValueErrorType.Union || depth > 16) return error;
  const candidates: ValueError[] = [];
  const notNull: ValueError[] = [];
  for (const branch of error.errors) {
    const first = branch.First();
    if (!first) continue;
    if (first.type !== ValueErrorType.Null) notNull.push(first);
    if (!branchMissesShape(error, first)) candidates.push(first);
  }
  // `X or null` (an optional field): X's own error says what was expected.
  if (candidates.length === 0) return notNull.length === 1 ? mostSpecificError(notNull[0]!, depth + 1) : error;
  const deepest = Math.max(...candidates.map((candidate) => segmentCount(candidate.path)));
  const best = candidates.filter((candidate) => segmentCount(candidate.path) === deepest);
  if (best.length !== 1) return error;
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
