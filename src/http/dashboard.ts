// `GET /dashboard` and everything under it: the web dashboard's built files from dist/dashboard
// (docs/api.md §12, docs/architecture.md §9). Public static content with no data in it; the
// dashboard's own API calls go through the usual auth. Any path without a file extension answers
// index.html so the single-page app's client-side routes survive a reload.
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors } from '../errors.js';
import { routeSettings } from './route-config.js';

/** src/http (or dist/http) -> the project root -> dist/dashboard, where `npm run build:dashboard` writes. */
export const dashboardDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'dashboard');

/** Only these files are served; anything else under the directory (source maps included) is not. */
const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Everything the page needs comes from this server; nothing may frame it. */
const contentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The file a sub-path names, or undefined when it could leave the directory. */
function assetPath(subPath: string): string | undefined {
  if (subPath.includes('\0') || subPath.includes('\\')) return undefined;
  const segments = subPath.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '..' || segment === '.')) return undefined;
  const path = resolve(dashboardDirectory, ...segments);
  return path.startsWith(dashboardDirectory + sep) ? path : undefined;
}

async function sendFile(reply: FastifyReply, path: string, contentType: string): Promise<FastifyReply | undefined> {
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch {
    return undefined;
  }
  return reply
    .header('content-type', contentType)
    // Rebuilt in place by `npm run build:dashboard`, so the browser revalidates each time.
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', contentSecurityPolicy)
    .send(body);
}

async function sendIndex(reply: FastifyReply): Promise<FastifyReply> {
  const sent = await sendFile(reply, join(dashboardDirectory, 'index.html'), contentTypes['.html']!);
  if (!sent) throw errors.dashboardNotBuilt();
  return sent;
}

export function registerDashboardRoutes(app: FastifyInstance): void {
  // Static files only: answered before the engine is ready, and without a credential.
  const config = routeSettings({ permission: 'public', beforeReady: true });
  app.get('/dashboard', { config }, async (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/dashboard/*', { config }, async (request, reply) => {
    const subPath = request.params['*'];
    const extension = extname(subPath).toLowerCase();
    if (extension === '') return sendIndex(reply);
    const contentType = contentTypes[extension];
    const path = assetPath(subPath);
    const sent = contentType && path ? await sendFile(reply, path, contentType) : undefined;
    if (!sent) throw errors.routeNotFound(request.method, request.url.split('?')[0] ?? request.url);
    return sent;
  });
}
