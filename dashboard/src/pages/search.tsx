// The search playground: one `POST C/points/query` (docs/api.md §5) by a point id, by a pasted
// vector, or as a fusion of two prefetches, with an optional filter. The request body is shown
// next to the results so it can be copied into a client.
import { useState } from 'preact/hooks';
import { api, collectionPath } from '../api';
import { denseVectors, parsePointId, type CollectionInfo, type PointId, type ScoredPoint } from '../types';
import { ErrorBox, JsonView, PayloadView, Section, parseJsonField, VectorSelect } from '../ui';

type Mode = 'id' | 'vector' | 'fusion';

/** A query box holds a point id or a JSON vector. */
function queryInput(label: string, text: string): { value?: PointId | number[]; error?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: `${label} is empty: give a point id or a vector` };
  if (trimmed.startsWith('[')) {
    const parsed = parseJsonField(label, trimmed);
    if (parsed.error) return { error: parsed.error };
    if (!Array.isArray(parsed.value) || !parsed.value.every((value) => typeof value === 'number')) return { error: `${label} must be a list of numbers` };
    return { value: parsed.value as number[] };
  }
  return { value: parsePointId(trimmed) };
}

export function SearchPage({ name, info }: { name: string; info: CollectionInfo }) {
  const vectors = denseVectors(info);
  const [mode, setMode] = useState<Mode>('id');
  const [using, setUsing] = useState(vectors[0]?.name ?? '');
  const [first, setFirst] = useState('');
  const [second, setSecond] = useState('');
  const [fusion, setFusion] = useState('rrf');
  const [filterText, setFilterText] = useState('');
  const [limit, setLimit] = useState('10');
  const [error, setError] = useState<string | undefined>();
  const [request, setRequest] = useState<unknown>();
  const [results, setResults] = useState<ScoredPoint[] | undefined>();

  const run = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    const filter = parseJsonField('The filter', filterText);
    const firstQuery = queryInput(mode === 'fusion' ? 'Prefetch 1' : mode === 'id' ? 'The point id' : 'The vector', first);
    const secondQuery = mode === 'fusion' ? queryInput('Prefetch 2', second) : {};
    const problem = filter.error ?? firstQuery.error ?? secondQuery.error;
    if (problem) {
      setError(problem);
      return;
    }
    const named = using === '' ? {} : { using };
    const size = Number(limit);
    const body: Record<string, unknown> =
      mode === 'fusion'
        ? {
            prefetch: [
              { query: firstQuery.value, ...named, limit: Math.max(size * 2, 20) },
              { query: secondQuery.value, ...named, limit: Math.max(size * 2, 20) },
            ],
            query: { fusion },
          }
        : { query: firstQuery.value, ...named };
    if (filter.value !== undefined) body.filter = filter.value;
    body.limit = size;
    body.with_payload = true;
    setRequest(body);
    try {
      const answer = await api<{ points: ScoredPoint[] }>('POST', `${collectionPath(name)}/points/query`, body);
      setResults(answer.points);
    } catch (failure) {
      setResults(undefined);
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  return (
    <div>
      <Section title="Query">
        <form id="search-form" onSubmit={(event) => void run(event)}>
          <div class="inline-form">
            <label>
              Query by{' '}
              <select name="mode" value={mode} onChange={(event) => setMode(event.currentTarget.value as Mode)}>
                <option value="id">a point id</option>
                <option value="vector">a pasted vector</option>
                <option value="fusion">fusion of two prefetches</option>
              </select>
            </label>
            <VectorSelect vectors={vectors} using={using} onChange={setUsing} />
            {mode === 'fusion' ? (
              <label>
                Fusion{' '}
                <select name="fusion" value={fusion} onChange={(event) => setFusion(event.currentTarget.value)}>
                  <option value="rrf">rrf</option>
                  <option value="dbsf">dbsf</option>
                </select>
              </label>
            ) : null}
            <label>
              Limit <input name="limit" type="number" min="1" max="1000" value={limit} onInput={(event) => setLimit(event.currentTarget.value)} />
            </label>
          </div>
          <label class="block">
            {mode === 'fusion' ? 'Prefetch 1 (a point id or a vector)' : mode === 'id' ? 'Point id' : 'Vector (JSON list of numbers)'}
            <textarea name="first" rows={mode === 'id' ? 1 : 3} spellcheck={false} value={first} onInput={(event) => setFirst(event.currentTarget.value)} />
          </label>
          {mode === 'fusion' ? (
            <label class="block">
              Prefetch 2 (a point id or a vector)
              <textarea name="second" rows={3} spellcheck={false} value={second} onInput={(event) => setSecond(event.currentTarget.value)} />
            </label>
          ) : null}
          <label class="block">
            Filter (JSON, optional)
            <textarea name="filter" rows={3} spellcheck={false} value={filterText} onInput={(event) => setFilterText(event.currentTarget.value)} />
          </label>
          <button type="submit">Search</button>
        </form>
        <ErrorBox message={error} />
      </Section>
      {results ? (
        <div class="split">
          <Section title={`Results (${results.length})`}>
            <table id="results-table">
              <thead>
                <tr>
                  <th class="number">#</th>
                  <th>Id</th>
                  <th class="number">Score</th>
                  <th>Payload</th>
                </tr>
              </thead>
              <tbody>
                {results.map((point, rank) => (
                  <tr key={String(point.id)} data-id={String(point.id)}>
                    <td class="number">{rank + 1}</td>
                    <td class="id">{String(point.id)}</td>
                    <td class="number score" title={String(point.score)}>
                      {point.score.toPrecision(6)}
                    </td>
                    <td>
                      <PayloadView payload={point.payload} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section title="Request">
            <JsonView value={request} />
          </Section>
        </div>
      ) : null}
    </div>
  );
}
