import { startQuiverCluster } from './test/cluster/support/quiver-cluster.ts';
const cluster = await startQuiverCluster();
const [a] = cluster.nodes.map((n) => n.url);
for (const name of ['x1', 'x2']) {
  const r = await fetch(a + '/collections/' + name, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vectors: { size: 2, distance: 'Dot' } }) });
  console.log(await r.text());
  const g = await (await fetch(a + '/collections/' + name)).json();
  console.log(JSON.stringify(g.result.config.params));
  await new Promise(r => setTimeout(r, 2000));
}
for (const n of cluster.nodes) console.log(n.nodeId, n.server?.logLines.filter((l) => /cluster/.test(l)).slice(0, 5).join('\n').slice(0, 1500));
await cluster.stop();
