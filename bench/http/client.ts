// Plain HTTP calls the benchmark makes to set up collections (not timed).
import { rowJson, type DataSet } from './data.js';

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const parsed = (await response.json()) as any;
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed.result;
}

/** Creates the collection, uploads every point in batches, indexes `category` as a keyword. */
export async function load(url: string, data: DataSet, batchSize: number): Promise<number> {
  const started = performance.now();
  await call(url, 'PUT', `/collections/${data.name}`, { vectors: { size: data.dimension, distance: data.distance } });
  await call(url, 'PUT', `/collections/${data.name}/index?wait=true`, { field_name: 'category', field_schema: 'keyword' });
  for (let start = 0; start < data.count; start += batchSize) {
    const end = Math.min(data.count, start + batchSize);
    // Text built by hand: JSON.stringify of a Float32Array row costs more than the upload.
    const parts: string[] = [];
    for (let id = start; id < end; id++) {
      parts.push(`{"id":${id},"vector":${rowJson(data.vectors, id, data.dimension)},"payload":{"category":"c${id % data.categories}"}}`);
    }
    await call(url, 'PUT', `/collections/${data.name}/points?wait=true`, `{"points":[${parts.join(',')}]}`);
  }
  return (performance.now() - started) / 1000;
}

/** Waits until the collection is green (the graph has absorbed every point). */
export async function waitGreen(url: string, name: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const info = await call(url, 'GET', `/collections/${name}`);
    if (info.status === 'green') return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function searchBody(data: DataSet, query: number, filtered: boolean): string {
  const filter = filtered ? `,"filter":{"must":[{"key":"category","match":{"value":"c3"}}]}` : '';
  return `{"vector":${rowJson(data.queries, query, data.dimension)},"limit":10${filter}}`;
}

/** The ids the server answers for each query, asked one at a time. */
export async function searchIds(url: string, data: DataSet, filtered: boolean): Promise<number[][]> {
  const answers: number[][] = [];
  for (let query = 0; query < data.queryCount; query++) {
    const result = (await call(url, 'POST', `/collections/${data.name}/points/search`, searchBody(data, query, filtered))) as { id: number }[];
    answers.push(result.map((hit) => hit.id));
  }
  return answers;
}
