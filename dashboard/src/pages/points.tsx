// The points browser: scroll (docs/api.md §3.4) with a filter editor, payloads and vectors in
// short form, and one point's full JSON on click. Filter mistakes come back as the server's 400
// message, shown as it is.
import { useState } from 'preact/hooks';
import { api, collectionPath } from '../api';
import type { CollectionInfo, PointId, Record_ } from '../types';
import { denseVectors, vectorOf } from '../types';
import { ErrorBox, JsonView, PayloadView, Section, formatVector, parseJsonField } from '../ui';

interface ScrollAnswer {
  points: Record_[];
  next_page_offset: PointId | null;
}

function vectorNames(info: CollectionInfo, point: Record_): string[] {
  if (Array.isArray(point.vector)) return [''];
  const names = new Set([...denseVectors(info).map((vector) => vector.name), ...Object.keys(point.vector ?? {})]);
  return [...names];
}

export function PointsPage({ name, info }: { name: string; info: CollectionInfo }) {
  const [filterText, setFilterText] = useState('');
  const [limit, setLimit] = useState('20');
  const [pages, setPages] = useState<Array<PointId | null>>([null]);
  const [answer, setAnswer] = useState<ScrollAnswer | undefined>();
  const [count, setCount] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [selected, setSelected] = useState<Record_ | undefined>();

  const load = async (offset: PointId | null, history: Array<PointId | null>): Promise<void> => {
    setError(undefined);
    const filter = parseJsonField('The filter', filterText);
    if (filter.error) {
      setError(filter.error);
      return;
    }
    const body: Record<string, unknown> = { limit: Number(limit), with_payload: true, with_vector: true };
    if (filter.value !== undefined) body.filter = filter.value;
    if (offset !== null) body.offset = offset;
    try {
      const page = await api<ScrollAnswer>('POST', `${collectionPath(name)}/points/scroll`, body);
      const counted = await api<{ count: number }>('POST', `${collectionPath(name)}/points/count`, { exact: true, ...(filter.value === undefined ? {} : { filter: filter.value }) });
      setAnswer(page);
      setCount(counted.count);
      setPages(history);
      setSelected(undefined);
    } catch (failure) {
      setAnswer(undefined);
      setCount(undefined);
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  return (
    <div>
      <Section title="Scroll">
        <form
          id="scroll-form"
          onSubmit={(event) => {
            event.preventDefault();
            void load(null, [null]);
          }}
        >
          <label class="block">
            Filter (JSON, docs/api.md §6)
            <textarea
              name="filter"
              rows={4}
              spellcheck={false}
              placeholder={'{"must": [{"key": "genre", "match": {"value": "rock"}}]}'}
              value={filterText}
              onInput={(event) => setFilterText(event.currentTarget.value)}
            />
          </label>
          <div class="inline-form">
            <label>
              Page size <input name="limit" type="number" min="1" max="1000" value={limit} onInput={(event) => setLimit(event.currentTarget.value)} />
            </label>
            <button type="submit">Scroll</button>
            <button type="button" disabled={pages.length < 2} onClick={() => void load(pages[pages.length - 2] ?? null, pages.slice(0, -1))}>
              Previous page
            </button>
            <button
              type="button"
              disabled={!answer || answer.next_page_offset === null}
              onClick={() => answer && answer.next_page_offset !== null && void load(answer.next_page_offset, [...pages, answer.next_page_offset])}
            >
              Next page
            </button>
            {count !== undefined ? (
              <span class="muted" id="match-count">
                {count} matching point(s)
              </span>
            ) : null}
          </div>
        </form>
        <ErrorBox message={error} />
      </Section>
      {answer ? (
        <div class="split">
          <Section title={`Points (${answer.points.length} on this page)`}>
            <table id="points-table">
              <thead>
                <tr>
                  <th>Id</th>
                  <th>Payload</th>
                  <th>Vectors</th>
                </tr>
              </thead>
              <tbody>
                {answer.points.map((point) => (
                  <tr
                    key={String(point.id)}
                    data-id={String(point.id)}
                    class={selected?.id === point.id ? 'selected clickable' : 'clickable'}
                    onClick={() => setSelected(point)}
                  >
                    <td class="id">{String(point.id)}</td>
                    <td>
                      <PayloadView payload={point.payload} />
                    </td>
                    <td class="vectors">
                      {vectorNames(info, point).map((vectorName) => (
                        <div key={vectorName}>
                          {vectorName === '' ? '' : <b>{vectorName}: </b>}
                          {formatVector(vectorOf(point, vectorName))}
                        </div>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          {selected ? (
            <Section title={`Point ${String(selected.id)}`}>
              <div id="point-json">
                <JsonView value={selected} />
              </div>
            </Section>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
