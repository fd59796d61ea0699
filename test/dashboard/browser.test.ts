// The dashboard in a real browser (playwright-core driving Debian's Chromium) against a real
// server with real data: create a collection, browse it, filter, search and draw the map, each
// checked against the REST answers for the same request. Screenshots go to test-artifacts/dashboard.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAdmin, adminPassword, adminUsername, jwtSecret } from '../support/auth.js';
import { browserTestsRequired, buildDashboard, findChromium, screenshotDirectory } from '../support/dashboard.js';
import { mulberry32 } from '../support/seeded-random.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from '../support/server.js';

const chromiumPath = findChromium();
if (!chromiumPath) {
  console.warn(
    browserTestsRequired
      ? 'dashboard browser tests: chromium is missing and QUIVER_REQUIRE_BROWSER_TESTS=1: failing'
      : 'dashboard browser tests skipped: no chromium found (apt-get install chromium, or set QUIVER_CHROMIUM)',
  );
}

describe.runIf(!chromiumPath && browserTestsRequired)('dashboard browser tests (required)', () => {
  it('dashboard — a browser is installed when QUIVER_REQUIRE_BROWSER_TESTS=1', () => {
    throw new Error('chromium not found: install it (apt-get install chromium) or set QUIVER_CHROMIUM');
  });
});

const collection = 'films';
const dimensions = 8;
const genres = ['rock', 'jazz', 'folk'] as const;
const pointCount = 240;

/** Three clusters, one per genre, so the map shows three groups coloured apart. */
function makePoints(): Array<{ id: number; vector: number[]; payload: { genre: string; year: number; title: string } }> {
  const random = mulberry32(16);
  const centres = genres.map(() => Array.from({ length: dimensions }, () => random() * 4 - 2));
  return Array.from({ length: pointCount }, (_, index) => {
    const genre = index % genres.length;
    return {
      id: index + 1,
      vector: centres[genre]!.map((value) => value + (random() - 0.5) * 0.8),
      payload: { genre: genres[genre]!, year: 1960 + (index % 60), title: `film ${index + 1}` },
    };
  });
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDirectory, `${name}.png`), fullPage: true });
}

async function cellTexts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).allTextContents();
}

describe.skipIf(!chromiumPath)('dashboard in a browser', () => {
  let directory: string;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const points = makePoints();

  beforeAll(async () => {
    buildDashboard();
    await mkdir(screenshotDirectory, { recursive: true });
    directory = await makeDataDirectory();
    server = await startServer(directory);
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (directory) await removeDataDirectory(directory);
  });

  it('create — the form creates a collection that GET C then reports', async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.locator('#collections-table').waitFor();
    await page.fill('#create-collection input[name=name]', collection);
    await page.fill('#create-collection input[name=size]', String(dimensions));
    await page.selectOption('#create-collection select[name=distance]', 'Cosine');
    await page.click('#create-collection button[type=submit]');
    await page.waitForURL(`**/dashboard/collections/${collection}`);
    await page.locator('#info-points').waitFor();
    const info = await server.client.getCollection(collection);
    expect(info.config.params.vectors).toMatchObject({ size: dimensions, distance: 'Cosine' });
    expect(await page.locator('#info-points').textContent()).toBe('0');

    // A second create with the same name shows the server's refusal as it is.
    await page.goto(`${server.url}/dashboard`);
    await page.fill('#create-collection input[name=name]', collection);
    await page.click('#create-collection button[type=submit]');
    const rest = await server.request('PUT', `/collections/${collection}`, { vectors: { size: dimensions, distance: 'Cosine' } });
    await expect.poll(() => page.locator('#create-collection + .error').textContent()).toBe(rest.body.status.error);
  });

  it('browse — the overview and the collection page show the counts and schema of GET C', async () => {
    await server.client.upsert(collection, { wait: true, points });
    await server.client.createPayloadIndex(collection, { field_name: 'genre', field_schema: 'keyword', wait: true });
    const info = await server.client.getCollection(collection);
    await page.goto(`${server.url}/dashboard`);
    const row = page.locator(`tr[data-collection="${collection}"]`);
    await expect.poll(() => row.locator('[data-field=points]').textContent()).toBe(String(info.points_count));
    expect(info.points_count).toBe(pointCount);
    expect(await row.locator('[data-field=vectors]').textContent()).toBe(String(pointCount));
    expect(await row.locator('[data-field=indexed]').textContent()).toBe(String(info.indexed_vectors_count));
    expect(await row.locator('.status').textContent()).toBe(info.status);
    await screenshot(page, '01-overview');

    await row.locator('a').click();
    await page.locator('#payload-schema').waitFor();
    expect(await cellTexts(page, '#payload-schema tbody td:first-child')).toEqual(['genre']);
    expect(await page.locator('#payload-schema tbody td:nth-child(3)').textContent()).toBe(String(info.payload_schema.genre!.points));
    await screenshot(page, '02-collection');
  });

  it('browse — the points browser pages through the ids scroll answers and shows a point as JSON', async () => {
    await page.goto(`${server.url}/dashboard/collections/${collection}/points`);
    await page.fill('#scroll-form input[name=limit]', '10');
    await page.click('#scroll-form button[type=submit]');
    await page.locator('#points-table').waitFor();
    const first = await server.request('POST', `/collections/${collection}/points/scroll`, { limit: 10 });
    expect(await cellTexts(page, '#points-table td.id')).toEqual(first.body.result.points.map((point: any) => String(point.id)));
    expect(await page.locator('#match-count').textContent()).toBe(`${pointCount} matching point(s)`);

    await page.click('#scroll-form button:has-text("Next page")');
    const second = await server.request('POST', `/collections/${collection}/points/scroll`, { limit: 10, offset: first.body.result.next_page_offset });
    await expect.poll(() => cellTexts(page, '#points-table td.id')).toEqual(second.body.result.points.map((point: any) => String(point.id)));

    const pick = second.body.result.points[3];
    await page.click(`#points-table tr[data-id="${pick.id}"]`);
    const shown = JSON.parse((await page.locator('#point-json pre').textContent()) ?? '');
    const stored = await server.request('GET', `/collections/${collection}/points/${pick.id}`);
    expect(shown.id).toBe(pick.id);
    expect(shown.payload).toEqual(stored.body.result.payload);
    expect(shown.vector).toHaveLength(dimensions);
    expect(shown.vector.map((value: number) => value.toFixed(4))).toEqual(stored.body.result.vector.map((value: number) => value.toFixed(4)));
    await screenshot(page, '03-points');
  });

  it('filter — a filter narrows the scroll to the count REST gives, and bad filters show their messages', async () => {
    const filter = { must: [{ key: 'genre', match: { value: 'jazz' } }] };
    await page.goto(`${server.url}/dashboard/collections/${collection}/points`);
    await page.fill('#scroll-form textarea[name=filter]', JSON.stringify(filter));
    await page.fill('#scroll-form input[name=limit]', '100');
    await page.click('#scroll-form button[type=submit]');
    const counted = await server.client.count(collection, { filter, exact: true });
    expect(counted.count).toBe(pointCount / genres.length);
    await expect.poll(() => page.locator('#match-count').textContent()).toBe(`${counted.count} matching point(s)`);
    const expected = await server.request('POST', `/collections/${collection}/points/scroll`, { filter, limit: 100 });
    expect(await cellTexts(page, '#points-table td.id')).toEqual(expected.body.result.points.map((point: any) => String(point.id)));
    await screenshot(page, '04-filter');

    // Not JSON: the page says so before asking the server.
    await page.fill('#scroll-form textarea[name=filter]', '{"must": [');
    await page.click('#scroll-form button[type=submit]');
    await expect.poll(() => page.locator('#scroll-form + .error').textContent()).toMatch(/^The filter is not valid JSON/);

    // JSON the server refuses: its 400 message is shown as it is.
    const refused = { must: [{ key: 'genre', match: { nothing: 1 } }] };
    await page.fill('#scroll-form textarea[name=filter]', JSON.stringify(refused));
    await page.click('#scroll-form button[type=submit]');
    const rest = await server.request('POST', `/collections/${collection}/points/scroll`, { filter: refused, limit: 100, with_payload: true, with_vector: true });
    expect(rest.status).toBe(400);
    await expect.poll(() => page.locator('#scroll-form + .error').textContent()).toBe(rest.body.status.error);
    await screenshot(page, '05-filter-error');
  });

  async function searchResults(): Promise<Array<{ id: string; score: string }>> {
    await page.locator('#results-table').waitFor();
    const ids = await cellTexts(page, '#results-table td.id');
    const scores = await cellTexts(page, '#results-table td.score');
    return ids.map((id, index) => ({ id, score: scores[index]! }));
  }

  const asShown = (answer: any[]): Array<{ id: string; score: string }> => answer.map((point) => ({ id: String(point.id), score: Number(point.score).toPrecision(6) }));

  it('search — by id, by a pasted vector, with a filter and with fusion, the results and scores of POST C/points/query', async () => {
    await page.goto(`${server.url}/dashboard/collections/${collection}/search`);
    await page.fill('#search-form textarea[name=first]', '7');
    await page.fill('#search-form input[name=limit]', '5');
    await page.click('#search-form button[type=submit]');
    const byId = await server.client.query(collection, { query: 7, limit: 5, with_payload: true });
    expect(byId.points).toHaveLength(5);
    await expect.poll(searchResults).toEqual(asShown(byId.points));
    await screenshot(page, '06-search-id');

    const vector = points[41]!.vector;
    const filter = { must: [{ key: 'genre', match: { value: 'folk' } }] };
    await page.selectOption('#search-form select[name=mode]', 'vector');
    await page.fill('#search-form textarea[name=first]', JSON.stringify(vector));
    await page.fill('#search-form textarea[name=filter]', JSON.stringify(filter));
    await page.click('#search-form button[type=submit]');
    const byVector = await server.client.query(collection, { query: vector, filter, limit: 5, with_payload: true });
    expect(byVector.points.every((point) => point.payload?.genre === 'folk')).toBe(true);
    await expect.poll(searchResults).toEqual(asShown(byVector.points));

    await page.selectOption('#search-form select[name=mode]', 'fusion');
    await page.fill('#search-form textarea[name=first]', '3');
    await page.fill('#search-form textarea[name=second]', JSON.stringify(points[9]!.vector));
    await page.fill('#search-form textarea[name=filter]', '');
    await page.selectOption('#search-form select[name=fusion]', 'rrf');
    await page.click('#search-form button[type=submit]');
    const fused = await server.client.query(collection, {
      prefetch: [
        { query: 3, limit: 20 },
        { query: points[9]!.vector, limit: 20 },
      ],
      query: { fusion: 'rrf' },
      limit: 5,
      with_payload: true,
    });
    await expect.poll(searchResults).toEqual(asShown(fused.points));
    await screenshot(page, '07-search-fusion');
  });

  it('map — draws one dot per sampled point, coloured by genre, and hovering names the point', async () => {
    await page.goto(`${server.url}/dashboard/collections/${collection}/map`);
    await page.fill('#map-form input[name=size]', '500');
    await page.click('#map-form button[type=submit]');
    await page.locator('#map circle').first().waitFor();
    expect(await page.locator('#map circle').count()).toBe(pointCount);
    await page.selectOption('#map-form select[name=field]', 'genre');
    await expect.poll(() => cellTexts(page, '#map-legend li')).toEqual(expect.arrayContaining([...genres]));

    // The three genre clusters are far apart in the vectors, so each colour is one group: every
    // dot of a genre is drawn in that genre's colour.
    const colours = await page.locator('#map circle').evaluateAll((circles) => circles.map((circle) => [circle.getAttribute('data-id'), circle.getAttribute('fill')]));
    const byGenre = new Map<string, Set<string>>();
    for (const [id, fill] of colours) {
      const genre = points[Number(id) - 1]!.payload.genre;
      byGenre.set(genre, (byGenre.get(genre) ?? new Set()).add(fill!));
    }
    expect([...byGenre.values()].map((set) => set.size)).toEqual([1, 1, 1]);

    const dot = page.locator('#map circle[data-id="42"]');
    await dot.hover();
    await expect.poll(() => page.locator('#map-hover .id').textContent()).toBe('42');
    expect(await page.locator('#map-hover').textContent()).toContain(`genre: ${points[41]!.payload.genre}`);
    await screenshot(page, '08-map');
    // The README's picture (docs/images/dashboard.png is a copy of this file).
    await page.setViewportSize({ width: 1020, height: 812 });
    await page.screenshot({ path: join(screenshotDirectory, 'readme-dashboard.png') });
    await page.setViewportSize({ width: 1280, height: 860 });
  });
  it('named vectors — config, points, search and map work on named dense and sparse vectors', async () => {
    const name = 'multi';
    await server.client.createCollection(name, {
      vectors: { text: { size: 4, distance: 'Dot' }, image: { size: 3, distance: 'Euclid' } },
      sparse_vectors: { keywords: {} },
    });
    const random = mulberry32(7);
    await server.client.upsert(name, {
      wait: true,
      points: Array.from({ length: 30 }, (_, index) => ({
        id: index + 1,
        vector: {
          text: Array.from({ length: 4 }, () => random()),
          image: Array.from({ length: 3 }, () => random() * 10),
          keywords: { indices: [index % 5, 10 + (index % 3)], values: [1, 0.5] },
        },
        payload: { size: index },
      })),
    });
    await page.goto(`${server.url}/dashboard/collections/${name}`);
    await expect.poll(() => cellTexts(page, 'section:has(h2:text("Vectors")) tbody td:first-child')).toEqual(['text', 'image', 'keywords']);

    await page.goto(`${server.url}/dashboard/collections/${name}/points`);
    await page.click('#scroll-form button[type=submit]');
    const firstRow = page.locator('#points-table tbody tr').first();
    await firstRow.waitFor();
    const vectorsText = (await firstRow.locator('td.vectors').textContent()) ?? '';
    expect(vectorsText).toContain('text: [');
    expect(vectorsText).toContain('(3 dims)');
    expect(vectorsText).toContain('keywords: sparse: 2 non-zero');

    await page.goto(`${server.url}/dashboard/collections/${name}/search`);
    await page.selectOption('#search-form select[name=using]', 'image');
    await page.fill('#search-form textarea[name=first]', '5');
    await page.click('#search-form button[type=submit]');
    const expected = await server.client.query(name, { query: 5, using: 'image', limit: 10, with_payload: true });
    await expect.poll(searchResults).toEqual(asShown(expected.points));

    await page.goto(`${server.url}/dashboard/collections/${name}/map`);
    await page.selectOption('#map-form select[name=using]', 'image');
    await page.click('#map-form button[type=submit]');
    await page.locator('#map circle').first().waitFor();
    expect(await page.locator('#map circle').count()).toBe(30);
    await page.selectOption('#map-form select[name=field]', 'size');
    await expect.poll(() => cellTexts(page, '#map-legend li')).toEqual(['size = 0', 'size = 29']);
    await screenshot(page, '09-named-vectors-map');
  });
});

describe.skipIf(!chromiumPath)('dashboard in a browser, auth on', () => {
  let directory: string;
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    buildDashboard();
    directory = await makeDataDirectory();
    server = await startServer(directory, { auth: { enabled: true, admin_username: adminUsername, admin_password: adminPassword, jwt_secret: jwtSecret } });
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (directory) await removeDataDirectory(directory);
  });

  it('api key — a refused call shows the key field; the key is kept in localStorage and sent as api-key', async () => {
    const token = await loginAdmin(server.app);
    const created = await server.app.inject({ method: 'PUT', url: '/collections/secret_docs', headers: { 'api-key': token }, payload: { vectors: { size: 4, distance: 'Dot' } } });
    expect(created.statusCode).toBe(200);
    const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
    const sentKeys: Array<string | undefined> = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/collections')) sentKeys.push(request.headers()['api-key']);
    });
    await page.goto(`${server.url}/dashboard`);
    await expect.poll(() => page.locator('.error').first().textContent()).toBe('Invalid or missing authorization token');
    await page.fill('#api-key-form input[name=api-key]', token);
    await page.click('#api-key-form button[type=submit]');
    await expect.poll(() => cellTexts(page, '#collections-table tbody a')).toEqual(['secret_docs']);
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('quiverdb.api-key') as string | null)).toBe(token);
    expect(sentKeys[0]).toBeUndefined();
    expect(sentKeys.at(-1)).toBe(token);

    // A reload keeps the key.
    await page.reload();
    await expect.poll(() => cellTexts(page, '#collections-table tbody a')).toEqual(['secret_docs']);
    await page.close();
  });
});
