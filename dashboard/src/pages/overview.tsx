// The collections overview: every collection with its status colour and counts, and a form to
// create one (docs/api.md §4.1).
import { useState } from 'preact/hooks';
import { api, collectionPath } from '../api';
import { linkProps, navigate } from '../router';
import { denseVectors, type CollectionInfo } from '../types';
import { ErrorBox, Section, StatusDot, useLoad } from '../ui';

interface Row {
  name: string;
  info?: CollectionInfo;
  error?: string;
}

async function loadOverview(): Promise<Row[]> {
  const { collections } = await api<{ collections: Array<{ name: string }> }>('GET', '/collections');
  const names = collections.map((collection) => collection.name).sort();
  return Promise.all(
    names.map(async (name) => {
      try {
        return { name, info: await api<CollectionInfo>('GET', collectionPath(name)) };
      } catch (error) {
        return { name, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

/** Stored vectors: every point holds each dense vector (sparse ones are not counted). */
function vectorsCount(info: CollectionInfo): number {
  return info.points_count * denseVectors(info).length;
}

function CreateCollection({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [size, setSize] = useState('4');
  const [distance, setDistance] = useState('Cosine');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (name.trim() === '') throw new Error('the collection needs a name');
      await api('PUT', collectionPath(name.trim()), { vectors: { size: Number(size), distance } });
      onCreated();
      navigate(`/collections/${encodeURIComponent(name.trim())}`);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Create a collection">
      <form class="inline-form" id="create-collection" onSubmit={(event) => void submit(event)}>
        <label>
          Name <input name="name" value={name} onInput={(event) => setName(event.currentTarget.value)} placeholder="my_collection" />
        </label>
        <label>
          Vector size <input name="size" type="number" min="1" value={size} onInput={(event) => setSize(event.currentTarget.value)} />
        </label>
        <label>
          Distance{' '}
          <select name="distance" value={distance} onChange={(event) => setDistance(event.currentTarget.value)}>
            {['Cosine', 'Dot', 'Euclid', 'Manhattan'].map((option) => (
              <option key={option}>{option}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Create
        </button>
      </form>
      <ErrorBox message={error} />
    </Section>
  );
}

export function OverviewPage() {
  const overview = useLoad(loadOverview, 'overview');
  const rows = overview.data ?? [];
  return (
    <div>
      <Section title="Collections">
        <div class="toolbar">
          <button onClick={overview.reload}>Refresh</button>
          {overview.loading ? <span class="muted">loading…</span> : <span class="muted">{rows.length} collection(s)</span>}
        </div>
        <ErrorBox message={overview.error} />
        <table id="collections-table">
          <thead>
            <tr>
              <th>Collection</th>
              <th>Status</th>
              <th class="number">Points</th>
              <th class="number">Vectors</th>
              <th class="number">Indexed vectors</th>
              <th>Payload indexes</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name} data-collection={row.name}>
                <td>
                  <a {...linkProps(`/collections/${encodeURIComponent(row.name)}`)}>{row.name}</a>
                </td>
                {row.info ? (
                  <>
                    <td>
                      <StatusDot status={row.info.status} />
                    </td>
                    <td class="number" data-field="points">{row.info.points_count}</td>
                    <td class="number" data-field="vectors">{vectorsCount(row.info)}</td>
                    <td class="number" data-field="indexed">{row.info.indexed_vectors_count}</td>
                    <td>{Object.keys(row.info.payload_schema).join(', ') || <span class="muted">none</span>}</td>
                  </>
                ) : (
                  <td colSpan={5} class="error-text">
                    {row.error}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && !overview.loading && !overview.error ? <p class="muted">No collections yet: create one below.</p> : null}
      </Section>
      <CreateCollection onCreated={overview.reload} />
    </div>
  );
}
