// A 2-D map of a sample of one dense vector: the first points by scroll order (docs/api.md §3.4),
// projected on their two principal components in the browser (../pca.ts), drawn as SVG and
// coloured by a payload field; hovering a dot names its point.
import { useMemo, useState } from 'preact/hooks';
import { api, collectionPath } from '../api';
import { principalComponents } from '../pca';
import { denseVectors, vectorOf, type CollectionInfo, type Record_ } from '../types';
import { ErrorBox, Section, formatValue, VectorSelect } from '../ui';

const maxSample = 2000;
const width = 720;
const height = 460;
const margin = 16;
const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const otherColour = '#888888';

interface Sample {
  records: Record_[];
  coordinates: number[][];
  variances: number[];
}

/** A colour per point: categories for text and booleans, a blue-to-red ramp for numbers. */
function colouring(records: Record_[], field: string): { colours: string[]; legend: Array<[string, string]> } {
  if (field === '') return { colours: records.map(() => palette[0]!), legend: [] };
  const values = records.map((record) => record.payload?.[field]);
  const numbers = values.filter((value): value is number => typeof value === 'number');
  if (numbers.length > 0 && numbers.length === values.filter((value) => value !== undefined && value !== null).length) {
    const low = Math.min(...numbers);
    const high = Math.max(...numbers);
    const ramp = (value: number): string => {
      const t = high === low ? 0.5 : (value - low) / (high - low);
      return `rgb(${Math.round(40 + 200 * t)}, ${Math.round(90 + 40 * (1 - Math.abs(t - 0.5) * 2))}, ${Math.round(220 - 180 * t)})`;
    };
    return {
      colours: values.map((value) => (typeof value === 'number' ? ramp(value) : otherColour)),
      legend: [
        [`${field} = ${low}`, ramp(low)],
        [`${field} = ${high}`, ramp(high)],
      ],
    };
  }
  const frequency = new Map<string, number>();
  for (const value of values) if (value !== undefined && value !== null) frequency.set(formatValue(value), (frequency.get(formatValue(value)) ?? 0) + 1);
  const top = [...frequency.entries()].sort((a, b) => b[1] - a[1]).slice(0, palette.length).map(([key]) => key);
  const colourOf = new Map(top.map((key, index) => [key, palette[index]!]));
  const colours = values.map((value) => (value === undefined || value === null ? otherColour : (colourOf.get(formatValue(value)) ?? otherColour)));
  const legend: Array<[string, string]> = top.map((key) => [key, colourOf.get(key)!]);
  if (frequency.size > top.length || values.some((value) => value === undefined || value === null)) legend.push(['other / none', otherColour]);
  return { colours, legend };
}

export function MapPage({ name, info }: { name: string; info: CollectionInfo }) {
  const vectors = denseVectors(info);
  const [using, setUsing] = useState(vectors[0]?.name ?? '');
  const [size, setSize] = useState('500');
  const [field, setField] = useState('');
  const [sample, setSample] = useState<Sample | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [hovered, setHovered] = useState<number | undefined>();
  const [busy, setBusy] = useState(false);

  const draw = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const limit = Math.min(maxSample, Math.max(2, Number(size) || 500));
      const answer = await api<{ points: Record_[] }>('POST', `${collectionPath(name)}/points/scroll`, {
        limit,
        with_payload: true,
        with_vector: using === '' ? true : [using],
      });
      const records = answer.points.filter((record) => {
        const vector = vectorOf(record, using);
        return Array.isArray(vector) && typeof vector[0] === 'number';
      });
      if (records.length < 2) throw new Error('the map needs at least two points with this vector');
      const projection = principalComponents(records.map((record) => vectorOf(record, using) as number[]));
      setSample({ records, coordinates: projection.coordinates, variances: projection.variances });
      setHovered(undefined);
    } catch (failure) {
      setSample(undefined);
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const fields = useMemo(() => {
    const names = new Set<string>(Object.keys(info.payload_schema));
    for (const record of sample?.records ?? []) for (const key of Object.keys(record.payload ?? {})) names.add(key);
    return [...names].sort();
  }, [sample, info]);

  const drawing = useMemo(() => {
    if (!sample) return undefined;
    const xs = sample.coordinates.map((point) => point[0]!);
    const ys = sample.coordinates.map((point) => point[1]!);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    // One scale for both axes: distances on the map keep the proportions PCA found.
    const scale = Math.min((width - 2 * margin) / (maxX - minX || 1), (height - 2 * margin) / (maxY - minY || 1));
    const [middleX, middleY] = [(minX + maxX) / 2, (minY + maxY) / 2];
    return {
      positions: sample.coordinates.map((point) => [width / 2 + (point[0]! - middleX) * scale, height / 2 - (point[1]! - middleY) * scale] as const),
      ...colouring(sample.records, field),
    };
  }, [sample, field]);

  const hoveredRecord = hovered === undefined ? undefined : sample?.records[hovered];
  return (
    <div>
      <Section title="Sample">
        <form class="inline-form" id="map-form" onSubmit={(event) => void draw(event)}>
          <VectorSelect vectors={vectors} using={using} onChange={setUsing} />
          <label>
            Points (at most {maxSample}) <input name="size" type="number" min="2" max={maxSample} value={size} onInput={(event) => setSize(event.currentTarget.value)} />
          </label>
          <label>
            Colour by{' '}
            <select name="field" value={field} onChange={(event) => setField(event.currentTarget.value)}>
              <option value="">(nothing)</option>
              {fields.map((key) => (
                <option key={key} value={key}>
                  {key}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy}>
            Draw
          </button>
        </form>
        <ErrorBox message={error} />
      </Section>
      {sample && drawing ? (
        <Section title={`PCA of ${sample.records.length} points`}>
          <p class="muted" id="map-summary">
            {sample.records.length} points; variance along the axes {sample.variances.map((value) => value.toPrecision(3)).join(' and ')}
          </p>
          <div class="map-wrap">
            <svg id="map" width={width} height={height} viewBox={`0 0 ${width} ${height}`} onMouseLeave={() => setHovered(undefined)}>
              <rect x="0" y="0" width={width} height={height} class="map-background" />
              {drawing.positions.map(([x, y], index) => (
                <circle
                  key={String(sample.records[index]!.id)}
                  data-id={String(sample.records[index]!.id)}
                  cx={x}
                  cy={y}
                  r={hovered === index ? 7 : 4}
                  fill={drawing.colours[index]}
                  class={hovered === index ? 'dot hovered' : 'dot'}
                  onMouseEnter={() => setHovered(index)}
                />
              ))}
            </svg>
            <div class="map-side">
              <div id="map-hover" class="hover-card">
                {hoveredRecord ? (
                  <>
                    <div>
                      id <b class="id">{String(hoveredRecord.id)}</b>
                    </div>
                    {field !== '' ? (
                      <div>
                        {field}: {formatValue(hoveredRecord.payload?.[field])}
                      </div>
                    ) : null}
                  </>
                ) : (
                  <span class="muted">hover a dot to see its id</span>
                )}
              </div>
              <ul class="legend" id="map-legend">
                {drawing.legend.map(([label, colour]) => (
                  <li key={label}>
                    <span class="swatch" style={{ background: colour }} />
                    {label}
                  </li>
                ))}
              </ul>
            </div>
          </div>
        </Section>
      ) : null}
    </div>
  );
}
