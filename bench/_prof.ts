// Ad-hoc profiling helper (not part of `npm run bench`): loads one route of a seeded workshop.
import autocannon from 'autocannon';
import { startBenchServer } from './_server';

const server = await startBenchServer();
const f = await server.signup('F');
const w = await server.api('POST', '/v1/workshops', f.token, { title: 'W' });
const target = process.argv[2] ?? 'workshop';
if (target === 'cards') {
  for (let c = 0; c < 50; c++) {
    const cluster = await server.api('POST', `/v1/workshops/${w.id}/cards`, f.token, {
      type: 'cluster',
      title: `C${c}`,
    });
    for (let i = 0; i < 9; i++)
      await server.api('POST', `/v1/workshops/${w.id}/cards`, f.token, {
        type: 'idea',
        parent: cluster.id,
        title: `I${i}`,
        content: 'A sentence or two of content, as participants usually write on a card.',
      });
  }
}
let voteCard = '';
if (target === 'votes') {
  await server.api('PUT', `/v1/workshops/${w.id}`, f.token, { vote_limit: { max_positive: 1_000_000 } });
  const cluster = await server.api('POST', `/v1/workshops/${w.id}/cards`, f.token, { type: 'cluster', title: 'C' });
  voteCard = cluster.id;
}
const urls: Record<string, string> = {
  votes: `/v1/workshops/${w.id}/cards/${voteCard}/votes`,
  hello: '/bench/hello',
  me: '/v1/user/me',
  workshop: `/v1/workshops/${w.id}`,
  cards: `/v1/workshops/${w.id}/cards`,
};
const r = await autocannon({
  url: `${server.url}${urls[target]}`,
  connections: 50,
  duration: 8,
  headers: { authorization: `Bearer ${f.token}`, 'content-type': 'application/json' },
  ...(target === 'votes' ? { method: 'POST' as const, body: JSON.stringify({ value: 1 }) } : {}),
});
console.log(target, r.requests.average, r.latency.p50, r.latency.p99);
await server.stop();
