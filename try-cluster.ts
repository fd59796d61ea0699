import { startQuiverCluster } from './test/cluster/support/quiver-cluster.ts';
const cluster = await startQuiverCluster();
const [a, b, c] = cluster.nodes.map((n) => n.url);
async function call(url: string, method: string, path: string, body?: unknown) {
  const r = await fetch(url + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const t = await r.text();
  console.log(method, path, r.status, t.slice(0, 400));
  return JSON.parse(t);
}
try {
  await call(a, 'PUT', '/collections/demo', { vectors: { size: 2, distance: 'Dot' } });
  await call(b, 'GET', '/collections');
  await call(c, 'GET', '/collections/demo');
  await call(b, 'PUT', '/collections/demo/points?wait=true', { points: Array.from({ length: 10 }, (_, i) => ({ id: i, vector: [i, 1], payload: { i } })) });
  await call(c, 'POST', '/collections/demo/points/count', { exact: true });
  await call(a, 'POST', '/collections/demo/points/search', { vector: [1, 0], limit: 3 });
  await call(a, 'POST', '/collections/demo/points/scroll', { limit: 4 });
  await call(c, 'GET', '/collections/demo');
  await call(a, 'PUT', '/collections/demo/points', { points: [{ id: 1, vector: [1, 2, 3] }] });
} finally {
  for (const n of cluster.nodes) console.log(n.nodeId, n.server?.logLines.filter((l) => /warn|error|"level":[45]0/.test(l)).slice(0, 5).join('\n'));
  await cluster.stop();
}
