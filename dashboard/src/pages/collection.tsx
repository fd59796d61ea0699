// One collection: a tab bar over its configuration, points browser, search playground and map.
// The configuration tab shows the vectors, index settings and payload schema (docs/api.md §4.3).
import { api, collectionPath } from '../api';
import { linkProps } from '../router';
import { denseVectors, type CollectionInfo } from '../types';
import { ErrorBox, JsonView, Section, StatusDot, useLoad } from '../ui';
import { MapPage } from './map';
import { PointsPage } from './points';
import { SearchPage } from './search';

const tabs = [
  { path: '', label: 'Overview' },
  { path: '/points', label: 'Points' },
  { path: '/search', label: 'Search' },
  { path: '/map', label: 'Map' },
] as const;

function ConfigurationTab({ info }: { info: CollectionInfo }) {
  const sparse = Object.keys(info.config.params.sparse_vectors ?? {});
  const schema = Object.entries(info.payload_schema);
  return (
    <div>
      <Section title="Counts">
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <StatusDot status={info.status} />
            </dd>
          </div>
          <div>
            <dt>Optimizer</dt>
            <dd>{typeof info.optimizer_status === 'string' ? info.optimizer_status : JSON.stringify(info.optimizer_status)}</dd>
          </div>
          <div>
            <dt>Points</dt>
            <dd id="info-points">{info.points_count}</dd>
          </div>
          <div>
            <dt>Indexed vectors</dt>
            <dd id="info-indexed">{info.indexed_vectors_count}</dd>
          </div>
        </dl>
      </Section>
      <Section title="Vectors">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th class="number">Size</th>
              <th>Distance</th>
            </tr>
          </thead>
          <tbody>
            {denseVectors(info).map((vector) => (
              <tr key={vector.name}>
                <td>{vector.name === '' ? <span class="muted">(unnamed)</span> : vector.name}</td>
                <td class="number">{vector.size}</td>
                <td>{vector.distance}</td>
              </tr>
            ))}
            {sparse.map((name) => (
              <tr key={`sparse-${name}`}>
                <td>{name}</td>
                <td class="number">sparse</td>
                <td>Dot</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Payload schema and indexes">
        {schema.length === 0 ? (
          <p class="muted">No payload index.</p>
        ) : (
          <table id="payload-schema">
            <thead>
              <tr>
                <th>Field</th>
                <th>Type</th>
                <th class="number">Points</th>
                <th>Parameters</th>
              </tr>
            </thead>
            <tbody>
              {schema.map(([field, entry]) => (
                <tr key={field}>
                  <td>{field}</td>
                  <td>{entry.data_type}</td>
                  <td class="number">{entry.points ?? '—'}</td>
                  <td>{entry.params === undefined ? '—' : JSON.stringify(entry.params)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
      <Section title="Configuration">
        <JsonView value={info.config} />
      </Section>
    </div>
  );
}

export function CollectionPage({ name, tab }: { name: string; tab: string }) {
  const info = useLoad(() => api<CollectionInfo>('GET', collectionPath(name)), `info:${name}:${tab}`);
  const base = `/collections/${encodeURIComponent(name)}`;
  return (
    <div>
      <div class="page-title">
        <h1>{name}</h1>
        {info.data ? <StatusDot status={info.data.status} /> : null}
        <button onClick={info.reload}>Refresh</button>
      </div>
      <nav class="tabs">
        {tabs.map((entry) => (
          <a key={entry.path} class={tab === entry.path ? 'active' : ''} {...linkProps(base + entry.path)}>
            {entry.label}
          </a>
        ))}
      </nav>
      <ErrorBox message={info.error} />
      {info.data ? (
        tab === '/points' ? (
          <PointsPage name={name} info={info.data} />
        ) : tab === '/search' ? (
          <SearchPage name={name} info={info.data} />
        ) : tab === '/map' ? (
          <MapPage name={name} info={info.data} />
        ) : (
          <ConfigurationTab info={info.data} />
        )
      ) : null}
    </div>
  );
}
