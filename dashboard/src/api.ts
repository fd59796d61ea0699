// The dashboard's only door to the server: the ordinary REST API (docs/api.md §3), with the
// api-key header when the user gave one (docs/api.md §7.1). Errors carry the server's message so
// the pages can show it as it is.

const keyStorageName = 'quiverdb.api-key';

export function storedApiKey(): string {
  try {
    return localStorage.getItem(keyStorageName) ?? '';
  } catch {
    return ''; // storage switched off: the key lives only as long as the page
  }
}

export function storeApiKey(key: string): void {
  try {
    if (key === '') localStorage.removeItem(keyStorageName);
    else localStorage.setItem(keyStorageName, key);
  } catch {
    // storage switched off; nothing to keep
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Listeners told when a call was refused for want of a credential (the header shows the key field). */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

function errorMessage(status: number, body: unknown, text: string): string {
  if (body && typeof body === 'object') {
    const envelope = body as { status?: unknown; message?: unknown };
    if (envelope.status && typeof envelope.status === 'object' && 'error' in envelope.status) return String(envelope.status.error);
    if (typeof envelope.message === 'string') return envelope.message;
  }
  return text.trim() === '' ? `HTTP ${status}` : text.slice(0, 500);
}

/** Calls the REST API and returns `result` from the success envelope; throws ApiError otherwise. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = storedApiKey();
  if (key !== '') headers['api-key'] = key;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, `the server did not answer: ${String(error)}`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    if (response.status === 401) for (const listener of unauthorizedListeners) listener();
    throw new ApiError(response.status, errorMessage(response.status, parsed, text));
  }
  return (parsed as { result: T }).result;
}

export const collectionPath = (name: string): string => `/collections/${encodeURIComponent(name)}`;
