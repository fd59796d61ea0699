// Request validation with TypeBox's compiler instead of Ajv: it understands bigint (ids above
// 2^53 arrive as bigint from the lossless parser) and lets every error name the exact field.
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { errors } from '../errors.js';
import { deniesUnknownFields } from '../json/unknown-fields.js';
import { describeJsonValue } from '../json/describe.js';

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
  if (error.type === ValueErrorType.ObjectAdditionalProperties) return 'unknown field';
  const received = error.value === undefined ? undefined : describeJsonValue(error.value);
  const expected = error.type === ValueErrorType.Union ? unionExpectation(error.schema) : undefined;
  // Users send integers; "bigint" is only how big ones arrive here.
  const message = expected ?? `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`.replace(/\bbigint\b/, 'integer');
  return `${message}${received === undefined ? '' : ` (got ${received.length > 80 ? `${received.slice(0, 77)}...` : received})`}`;
}

interface SchemaShape {
  anyOf?: SchemaShape[];
  const?: unknown;
  type?: string;
  $ref?: string;
  items?: SchemaShape;
  required?: string[];
  properties?: Record<string, SchemaShape>;
}

/** `number` -> `numbers`, `list of numbers` -> `lists of numbers`. */
function plural(member: string): string {
  if (member === 'number') return 'numbers';
  return member.startsWith('list of ') ? `lists of ${member.slice('list of '.length)}` : `${member}s`;
}

/**
 * What one union member accepts, in a user's words: `list of numbers`, `integer`, `"rrf"`,
 * `{nearest}` (an object by its required keys). `null` (an optional field's "unset") is left out.
 */
function describeMember(schema: SchemaShape): string[] {
  if (schema.anyOf) return schema.anyOf.flatMap(describeMember);
  if ('const' in schema) return [JSON.stringify(schema.const)];
  if (schema.$ref) return [`${schema.$ref.charAt(0).toLowerCase()}${schema.$ref.slice(1)} object`];
  switch (schema.type) {
    case 'null':
      return [];
    case 'integer':
    case 'bigint':
      return ['integer'];
    case 'array': {
      // A number element that may also arrive as bigint (a literal beyond 2^53) is still a number.
      const described = schema.items ? describeMember(schema.items) : [];
      const items = described.includes('number') ? described.filter((item) => item !== 'integer') : described;
      return [items.length === 1 && !items[0]!.startsWith('{') ? `list of ${plural(items[0]!)}` : 'list'];
    }
    case 'object': {
      const keys = schema.required?.length ? schema.required : Object.keys(schema.properties ?? {});
      return [keys.length > 0 ? `{${keys.join(', ')}}` : 'object'];
    }
    case 'number':
    case 'string':
    case 'boolean':
      return [schema.type];
    default:
      return ['value'];
  }
}

/**
 * A union's own message is only "expected union value". Name its members instead: `expected
 * one of "weak", "medium"` for an enum, `expected one of: list of numbers, integer, {nearest}`
 * for a mix, `expected integer` when the members differ only in representation.
 */
function unionExpectation(schema: unknown): string | undefined {
  const described = [...new Set(describeMember(schema as SchemaShape))];
  // An integer is a number: a number that may arrive as bigint (beyond 2^53) is `expected number`.
  const members = described.includes('number') ? described.filter((member) => member !== 'integer') : described;
  if (members.length === 0) return undefined;
  if (members.length === 1) return `expected ${members[0]}`;
  if (members.every((member) => member.startsWith('"'))) return `expected one of ${members.join(', ')}`;
  return `expected one of: ${members.join(', ')}`;
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

/**
 * Each union error's branch iterators yield their first error once: reading it again would
 * give the second. Every reader goes through this cache.
 */
const firstErrors = new WeakMap<ValueError, (ValueError | undefined)[]>();

function branchFirstErrors(union: ValueError): (ValueError | undefined)[] {
  let firsts = firstErrors.get(union);
  if (!firsts) {
    firsts = union.errors.map((branch) => branch.First());
    firstErrors.set(union, firsts);
  }
  return firsts;
}

/**
 * Whether a branch refused the value's very shape: another kind, an object of other keys, or
 * a nested union all of whose members did.
 */
function branchMissesShape(union: ValueError, branch: ValueError, depth: number): boolean {
  if (branch.path === union.path) {
    if (branch.type === ValueErrorType.Union && depth < 16) {
      return branchFirstErrors(branch).every((inner) => inner === undefined || branchMissesShape(branch, inner, depth + 1));
    }
    return kindMismatches.has(branch.type);
  }
  const parent = branch.path.slice(0, branch.path.lastIndexOf('/'));
  return parent === union.path && (branch.type === ValueErrorType.ObjectRequiredProperty || branch.type === ValueErrorType.ObjectAdditionalProperties);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * For an object value, the one object member it was meant as: the member all of whose required
 * keys it has, or else the one member that declares every key it has. Undefined when no member
 * or several fit.
 */
function intendedObjectMember(union: ValueError): number | undefined {
  const value = union.value;
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  const members = ((union.schema as SchemaShape).anyOf ?? []).map((schema, position) => ({ schema, position }));
  const objects = members.filter(({ schema }) => schema.type === 'object' && schema.properties);
  const complete = objects.filter(({ schema }) => (schema.required ?? []).length > 0 && schema.required!.every((key) => key in value));
  if (complete.length === 1) return complete[0]!.position;
  const declared = objects.filter(({ schema }) => keys.length > 0 && keys.every((key) => key in schema.properties!));
  return declared.length === 1 ? declared[0]!.position : undefined;
}

/**
 * A union's own error says only "expected union value". Look inside: keep the branches that
 * recognised the value's shape (same kind, same keys; the `null` of an optional field never
 * does), and when one remains, or one got deepest into the value, report its error instead, so
 * `limit: 0` reads "expected integer to be greater or equal to 1" and a bad list element names
 * its index. For `X or null` X's error is reported. An object that fits no member's keys
 * exactly is read as the member whose keys it has (`{"nearest": [1], "extra": 2}` reports the
 * unknown `extra`). Otherwise the union's error stays, and describeProblem names its members.
 */
export function mostSpecificError(error: ValueError, depth = 0): ValueError {
  if (error.type !== ValueErrorType.Union || depth > 16) return error;
  const firsts = branchFirstErrors(error);
  const candidates: ValueError[] = [];
  const notNull: ValueError[] = [];
  for (const first of firsts) {
    if (!first) continue;
    if (first.type !== ValueErrorType.Null) notNull.push(first);
    if (!branchMissesShape(error, first, depth)) candidates.push(first);
  }
  if (candidates.length === 0) {
    const intended = intendedObjectMember(error);
    const intendedError = intended === undefined ? undefined : firsts[intended];
    if (intendedError) return mostSpecificError(intendedError, depth + 1);
    // `X or null` (an optional field): X's own error says what was expected.
    return notNull.length === 1 ? mostSpecificError(notNull[0]!, depth + 1) : error;
  }
  const deepest = Math.max(...candidates.map((candidate) => segmentCount(candidate.path)));
  let best = candidates.filter((candidate) => segmentCount(candidate.path) === deepest);
  // A tie between `list of numbers` and `list of lists of numbers` (a dense or a multivector
  // query) on an element that is no list at all: it was meant as a number, not as a row.
  if (best.length > 1) best = best.filter((candidate) => !(candidate.type === ValueErrorType.Array && !Array.isArray(candidate.value)));
  if (best.length !== 1) return error;
  return mostSpecificError(best[0]!, depth + 1);
}

function unescapePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Deletes the key a JSON pointer names (`/points/0/paylod`), if it is still there. */
function deleteAtPointer(root: unknown, pointer: string): void {
  const segments = pointer.split('/').slice(1).map(unescapePointerSegment);
  const key = segments.pop();
  let node = root;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return;
    node = (node as Record<string, unknown>)[segment];
  }
  if (key !== undefined && isPlainObject(node)) delete node[key];
}

/** Rounds of removal: each can reveal the unknown keys of a union member chosen once others go. */
const maxIgnoreRounds = 8;

/**
 * Removes from `value` (in place) every unknown key TypeBox reports where unknown keys are to be
 * ignored, and returns their paths (`points[0].payload`). Keys of objects marked
 * `denyUnknownFields`, and every other problem, stay for the error report. Valid values cost
 * one Check; each round is one pass over the errors.
 */
export function removeIgnoredFields(compiled: TypeCheck<TSchema>, value: unknown): string[] {
  const ignored = new Set<string>();
  for (let round = 0; round < maxIgnoreRounds && !compiled.Check(value); round += 1) {
    const pointers: string[] = [];
    for (const error of compiled.Errors(value)) {
      const specific = mostSpecificError(error);
      if (specific.type !== ValueErrorType.ObjectAdditionalProperties) continue;
      if (deniesUnknownFields(specific.schema)) continue;
      pointers.push(specific.path);
    }
    if (pointers.length === 0) break;
    for (const pointer of pointers) {
      deleteAtPointer(value, pointer);
      ignored.add(describeJsonPointer(pointer));
    }
  }
  return [...ignored];
}

/** What a validator needs to say it ignored fields: a debug line, one per request. */
export interface IgnoredFieldsLogger {
  debug(object: object, message: string): void;
}

export function logIgnoredFields(logger: IgnoredFieldsLogger | undefined, route: string, ignored: string[]): void {
  if (ignored.length === 0 || !logger) return;
  logger.debug({ route, ignored_fields: ignored.slice(0, 20), ignored_count: ignored.length }, `ignored unknown body fields: ${ignored.slice(0, 5).join(', ')}${ignored.length > 5 ? ', ...' : ''}`);
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
 * A compiled check of `schema`, compiled on first use: compiling every route's schemas when the
 * server starts cost ~65 ms of each start (docs/architecture.md §21); a route pays its own once.
 */
export function lazyCheck<Schema extends TSchema>(schema: Schema): () => TypeCheck<Schema> {
  let compiled: TypeCheck<Schema> | undefined;
  return () => (compiled ??= TypeCompiler.Compile(schema));
}

/**
 * Fastify validator compiler. Query strings and path parameters arrive as text, so they are
 * converted to the declared types first ("true" -> true, "5" -> 5); bodies are checked as sent,
 * after unknown fields are removed where Qdrant ignores them (logged at debug level).
 */
export function typeboxValidatorCompiler(logger?: IgnoredFieldsLogger): FastifySchemaCompiler<TSchema> {
  return ({ schema, httpPart, method, url }) => {
    const check = lazyCheck(schema);
    const converts = httpPart === 'querystring' || httpPart === 'params' || httpPart === 'headers';
    const isBody = httpPart === 'body' || httpPart === undefined;
    return (input: unknown) => {
      const compiled = check();
      const value = converts ? Value.Convert(schema, input) : input;
      if (compiled.Check(value)) return { value };
      if (isBody) {
        logIgnoredFields(logger, `${method} ${url}`, removeIgnoredFields(compiled, value));
        if (compiled.Check(value)) return { value };
      }
      return { error: validationError(compiled, value, httpPart ?? 'body') };
    };
  };
}
