// The JSON text of the commonest answers, a search or a query without vectors and with no payload
// or the whole one: the success envelope (src/http/envelope.ts) around a list of `{id, version,
// score}` (and `payload`, its stored text), or around `{"points": [...]}` of them (the query
// API's answer). Node 20's JSON.stringify took ~4 µs for ten such points, ~2% of a 128-d search
// request's JS time; this writes the same characters by concatenation in about a third of that
// (bench/README.md, "The request path's own costs"), and a list of four points or more with
// numeric ids and no payloads by one kernel call (kernelListText below). Anything else, or
// anything it is not sure of, is left to serializeJson: JSON.stringify is the slow twin, compared
// in scored-answer-text.test.ts and, for stored payloads, in src/points/stored-payload.test.ts.
import { native } from '../native/index.js';
import { StoredPayload } from '../points/stored-payload.js';

/**
 * Whether `value` is a plain object (so no `toJSON` of a class's) whose enumerable keys are
 * exactly `keys`, all its own, in that order (JSON.stringify's order).
 */
function hasExactKeys(value: object, keys: readonly string[]): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let position = 0;
  for (const key in value) {
    if (key !== keys[position] || !Object.hasOwn(value, key)) return false;
    position += 1;
  }
  return position === keys.length;
}

const envelopeKeys = ['usage', 'time', 'status', 'result'];
const usageKeys = ['hardware'];
const pointKeys = ['id', 'version', 'score'];
const payloadPointKeys = ['id', 'version', 'score', 'payload'];

/** A number's JSON text, or undefined where JSON.stringify would not write its digits (NaN, ±Infinity). */
function numberText(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

const queryResultKeys = ['points'];

/**
 * Lists this long or longer are written by the kernel (`scoredPointsJson`,
 * crates/quiver-core/src/json_number_text.rs) when their ids are numbers: printing ten fresh
 * scores with `String` cost ~2 µs of a 128-d search's JS time, the whole list ~5–7 µs, against
 * ~1 µs for the kernel's call (bench/README.md, "Scores written by the kernel"). Shorter lists
 * cost less here than the call does.
 */
const kernelListLength = 4;
/** The kernel's inputs, kept between answers up to this many points; longer lists get their own. */
const kernelScratchLimit = 4096;
let kernelIds = new Float64Array(64);
let kernelVersions = new Float64Array(64);
let kernelScores = new Float64Array(64);

/** Off: every list is written here (the kernel's slow twin, for tests). */
let kernelLists = true;
export function setKernelScoredLists(enabled: boolean): void {
  kernelLists = enabled;
}

/** A point of a plain answer, its keys checked (hasExactKeys), its values not yet. */
type ScoredFields = { id: unknown; version: unknown; score: unknown; payload?: unknown };

/**
 * A list of `{id, version, score}`, or of `{id, version, score, payload}` with each payload a
 * point's whole stored payload (src/points/stored-payload.ts), as JSON text; undefined when it is
 * not exactly that.
 */
function scoredPointsText(result: unknown): string | undefined {
  if (!Array.isArray(result) || Object.getPrototypeOf(result) !== Array.prototype) return undefined;
  const points = result as unknown[];
  let payloads = false;
  for (let position = 0; position < points.length; position += 1) {
    const point = points[position];
    if (typeof point !== 'object' || point === null) return undefined;
    if (hasExactKeys(point, pointKeys)) continue;
    if (!hasExactKeys(point, payloadPointKeys) || !((point as { payload: unknown }).payload instanceof StoredPayload)) return undefined;
    payloads = true;
  }
  const scored = points as ScoredFields[];
  return (kernelLists && !payloads && scored.length >= kernelListLength ? kernelListText(scored) : undefined) ?? listText(scored);
}

/** The kernel's text of the list, or undefined when an id, version or score is not a plain number it writes. */
function kernelListText(points: readonly ScoredFields[]): string | undefined {
  const count = points.length;
  let [ids, versions, scores] = [kernelIds, kernelVersions, kernelScores];
  if (ids.length < count) {
    [ids, versions, scores] = [new Float64Array(count), new Float64Array(count), new Float64Array(count)];
    if (count <= kernelScratchLimit) [kernelIds, kernelVersions, kernelScores] = [ids, versions, scores];
  }
  for (let position = 0; position < count; position += 1) {
    const { id, version, score } = points[position]!;
    if (typeof id !== 'number' || typeof version !== 'number' || typeof score !== 'number') return undefined;
    ids[position] = id;
    versions[position] = version;
    scores[position] = score;
  }
  return native.scoredPointsJson(ids, versions, scores, count) ?? undefined;
}

/** The list's text written here, or undefined where JSON.stringify would not write a value's digits. */
function listText(points: readonly ScoredFields[]): string | undefined {
  let text = '[';
  for (let position = 0; position < points.length; position += 1) {
    const { id, version, score, payload } = points[position]!;
    const idText = typeof id === 'string' ? JSON.stringify(id) : numberText(id);
    const versionText = numberText(version);
    const scoreText = numberText(score);
    if (idText === undefined || versionText === undefined || scoreText === undefined) return undefined;
    const payloadText = payload instanceof StoredPayload ? `,"payload":${payload.jsonText()}` : '';
    text += `${position === 0 ? '' : ','}{"id":${idText},"version":${versionText},"score":${scoreText}${payloadText}}`;
  }
  return `${text}]`;
}

/** The envelope's result as JSON text: a search's list, or a query's `{"points": list}`. */
function resultText(result: unknown): string | undefined {
  if (Array.isArray(result)) return scoredPointsText(result);
  if (typeof result !== 'object' || result === null || !hasExactKeys(result, queryResultKeys)) return undefined;
  const points = scoredPointsText((result as { points: unknown }).points);
  return points === undefined ? undefined : `{"points":${points}}`;
}

/** The envelope's JSON text, or undefined when it is not exactly a plain scored answer. */
export function scoredAnswerText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !hasExactKeys(value, envelopeKeys)) return undefined;
  const envelope = value as { usage: unknown; time: unknown; status: unknown; result: unknown };
  const usage = envelope.usage;
  if (typeof usage !== 'object' || usage === null || !hasExactKeys(usage, usageKeys) || (usage as { hardware: unknown }).hardware !== null) return undefined;
  const time = numberText(envelope.time);
  if (time === undefined || envelope.status !== 'ok') return undefined;
  const result = resultText(envelope.result);
  return result === undefined ? undefined : `{"usage":{"hardware":null},"time":${time},"status":"ok","result":${result}}`;
}
