// The /dashboard route (docs/api.md §12): public static files from dist/dashboard, index.html for
// client-side routes, nothing outside the directory, and no effect on the API's auth.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardDirectory } from '../../src/http/dashboard.js';
import { createAuthApp, loginAdmin, type AuthTestApp } from '../support/auth.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { buildDashboard } from '../support/dashboard.js';

let open: TestApp;
let loading: TestApp;
let authed: AuthTestApp;
let indexHtml: string;

beforeAll(async () => {
  buildDashboard();
  indexHtml = await readFile(join(dashboardDirectory, 'index.html'), 'utf8');
  open = await createTestApp();
  loading = await createTestApp({ open: false });
  authed = await createAuthApp();
});

afterAll(async () => {
  await open.dispose();
  await loading.dispose();
  await authed.dispose();
});

describe('GET /dashboard', () => {
  it('dashboard — /dashboard and /dashboard/ answer the built index.html', async () => {
    for (const url of ['/dashboard', '/dashboard/']) {
      const response = await open.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toBe(indexHtml);
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    }
  });

  it('dashboard — a client-side route without a file extension answers index.html', async () => {
    for (const url of ['/dashboard/collections/films', '/dashboard/collections/films/map', '/dashboard/anything/else']) {
      const response = await open.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(indexHtml);
    }
  });

  it('dashboard — the script and the stylesheet are served with their content types', async () => {
    const script = await open.app.inject({ method: 'GET', url: '/dashboard/app.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toBe(await readFile(join(dashboardDirectory, 'app.js'), 'utf8'));
    const style = await open.app.inject({ method: 'GET', url: '/dashboard/style.css' });
    expect(style.statusCode).toBe(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('dashboard — the page loads nothing from another origin (works offline)', async () => {
    const script = await readFile(join(dashboardDirectory, 'app.js'), 'utf8');
    expect(indexHtml).not.toMatch(/https?:\/\//);
    expect(script).not.toMatch(/(src|href)=["']https?:/);
    expect(script).not.toMatch(/import\s*\(?["']https?:/);
  });

  it('dashboard — a missing asset is a 404 in the envelope, never index.html', async () => {
    const response = await open.app.inject({ method: 'GET', url: '/dashboard/missing.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json().status.error).toBe('route not found: GET /dashboard/missing.js');
  });

  it('dashboard — paths that climb out of the directory or name unlisted types are refused', async () => {
    for (const url of ['/dashboard/..%2Fpackage.json', '/dashboard/%2e%2e/%2e%2e/package.json', '/dashboard/..%5Cpackage.json', '/dashboard/app.js%00.css', '/dashboard/../../src/app.ts']) {
      const response = await open.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).not.toBe(200);
      expect(response.body).not.toContain('"name": "quiverdb"');
      expect(response.body).not.toContain('buildApp');
    }
  });

  it('dashboard — answers while the engine is still loading (static content, no data)', async () => {
    const response = await loading.app.inject({ method: 'GET', url: '/dashboard' });
    expect(response.statusCode).toBe(200);
    const api = await loading.app.inject({ method: 'GET', url: '/collections' });
    expect(api.statusCode).toBe(412);
  });

  it('dashboard — public with auth on, while the API it calls still needs a credential', async () => {
    const page = await authed.app.inject({ method: 'GET', url: '/dashboard/collections/x' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(indexHtml);
    const refused = await authed.app.inject({ method: 'GET', url: '/collections' });
    expect(refused.statusCode).toBe(401);
    const token = await loginAdmin(authed.app);
    const allowed = await authed.app.inject({ method: 'GET', url: '/collections', headers: { 'api-key': token } });
    expect(allowed.statusCode).toBe(200);
  });
});
