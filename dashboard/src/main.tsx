// The dashboard's shell: the header (with the api-key field when the server asks for a
// credential) and the client-side routes under /dashboard (docs/api.md §12).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onUnauthorized, storeApiKey, storedApiKey } from './api';
import { CollectionPage } from './pages/collection';
import { OverviewPage } from './pages/overview';
import { linkProps, useRoute } from './router';

function ApiKeyField({ onChange }: { onChange: () => void }) {
  const [needed, setNeeded] = useState(storedApiKey() !== '');
  const [key, setKey] = useState(storedApiKey());
  useEffect(() => onUnauthorized(() => setNeeded(true)), []);
  if (!needed) return null;
  return (
    <form
      class="api-key"
      id="api-key-form"
      onSubmit={(event) => {
        event.preventDefault();
        storeApiKey(key.trim());
        onChange();
      }}
    >
      <label>
        API key{' '}
        <input name="api-key" type="password" autocomplete="off" placeholder="auth is on: paste a key" value={key} onInput={(event) => setKey(event.currentTarget.value)} />
      </label>
      <button type="submit">Use</button>
    </form>
  );
}

/** `/collections/{name}[/tab]` -> the name and the tab; undefined for other routes. */
function collectionRoute(route: string): { name: string; tab: string } | undefined {
  const match = /^\/collections\/([^/]+)(\/(?:points|search|map))?$/.exec(route);
  if (!match) return undefined;
  return { name: decodeURIComponent(match[1]!), tab: match[2] ?? '' };
}

function App() {
  const route = useRoute();
  // Bumped when the key changes, so every page loads again with it.
  const [generation, setGeneration] = useState(0);
  const collection = collectionRoute(route);
  return (
    <div class="layout">
      <header class="top">
        <a class="brand" {...linkProps('/')}>
          QuiverDB
        </a>
        <a {...linkProps('/')}>Collections</a>
        <span class="spacer" />
        <ApiKeyField onChange={() => setGeneration((value) => value + 1)} />
      </header>
      <main key={generation}>
        {collection ? (
          <CollectionPage key={collection.name} name={collection.name} tab={collection.tab} />
        ) : route === '/' ? (
          <OverviewPage />
        ) : (
          <p class="error">
            No such page: {route}. <a {...linkProps('/')}>Back to the collections</a>
          </p>
        )}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
