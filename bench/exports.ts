/**
 * Exports: a workshop of 2,000 cards (100 clusters of 19 ideas) with votes, ratings on two
 * criteria, comments, items and a canvas, exported in each format by the server in its own
 * process. Per format: time from the request to `success`, cards per second, the server's peak
 * RSS growth while it exports, and `GET /health` latency (p50/p99, one request at a time) while
 * the export runs, beside the same figures measured idle in the same run.
 *
 * Targets (2 cores): every format ≥ 400 cards/s (csv, native and xlsx ≥ 2,000 cards/s), peak RSS
 * growth ≤ 300 MB, and /health p99 during an export ≤ 2× its idle p99 + 20 ms.
 */
import { readFileSync } from 'node:fs';
import { startBenchServer, type BenchServer } from './_server';

const CLUSTERS = 100;
const IDEAS_PER_CLUSTER = 19;
const CARDS = CLUSTERS * (IDEAS_PER_CLUSTER + 1);
const VOTERS = 20;
const FORMATS = ['csv', 'native', 'xlsx', 'docx', 'pdf'] as const;
const TARGET_CARDS_PER_S: Record<(typeof FORMATS)[number], number> = {
  csv: 2000,
  native: 2000,
  xlsx: 2000,
  docx: 400,
  pdf: 400,
};

async function seed(server: BenchServer) {
  const facilitator = await server.signup('Facilitator');
  const { id: wid } = await server.api('POST', '/v1/workshops', facilitator.token, {
    title: 'Export bench — 2,000 cards',
  });
  await server.api('PUT', `/v1/workshops/${wid}`, facilitator.token, {
    vote_limit: { positive: -1, negative: -1, max_positive: 100, max_negative: 100 },
  });
  // The cards in one CSV import: 100 clusters of 19 ideas.
  const rows = ['type,title,content,cluster,color,aside'];
  for (let c = 0; c < CLUSTERS; c += 1) {
    rows.push(`cluster,Theme ${c},,,blue,false`);
    for (let i = 0; i < IDEAS_PER_CLUSTER; i += 1)
      rows.push(
        `idea,Idea ${c}.${i},"A sentence or two of content, as participants write on a card.",Theme ${c},,false`,
      );
  }
  const form = new FormData();
  form.append('file', new Blob([rows.join('\n')], { type: 'text/csv' }), 'cards.csv');
  const imported = await fetch(`${server.url}/v1/workshops/${wid}/cards`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${facilitator.token}` },
    body: form,
  });
  if (!imported.ok) throw new Error(`import failed: ${imported.status} ${await imported.text()}`);
  const cards: Array<{ id: string; type: string }> = await server.api(
    'GET',
    `/v1/workshops/${wid}/cards`,
    facilitator.token,
  );
  const ideas = cards.filter((c) => c.type === 'idea');
  const impact = await server.api('POST', `/v1/workshops/${wid}/criteria`, facilitator.token, {
    title: 'Impact',
    scale: 4,
  });
  const effort = await server.api('POST', `/v1/workshops/${wid}/criteria`, facilitator.token, {
    title: 'Effort',
    scale: 4,
  });
  const section = await server.api('POST', `/v1/workshops/${wid}/sections`, facilitator.token, {
    title: 'Next actions',
  });
  const { access_code } = await server.api('GET', `/v1/workshops/${wid}/access_code`, facilitator.token);
  const voters = [];
  for (let u = 0; u < VOTERS; u += 1) {
    const user = await server.signup(`Voter ${u}`);
    await server.api('POST', '/v1/workshops/join', user.token, { access_code });
    voters.push(user);
  }
  // Each voter: 100 votes, 50 ratings on each criterion, 10 comments; some items.
  const writes: Array<Promise<unknown>> = [];
  let n = 0;
  for (const [u, voter] of voters.entries()) {
    for (let k = 0; k < 100; k += 1) {
      const card = ideas[(u * 97 + k * 13) % ideas.length]!;
      writes.push(
        server.api('POST', `/v1/workshops/${wid}/cards/${card.id}/votes`, voter.token, { value: k % 7 === 0 ? -1 : 1 }),
      );
    }
    for (let k = 0; k < 50; k += 1) {
      const card = ideas[(u * 50 + k) % ideas.length]!;
      writes.push(
        server.api('POST', `/v1/workshops/${wid}/cards/${card.id}/ratings`, voter.token, {
          criterium_id: impact.id,
          value: (u + k) % 5,
        }),
      );
      writes.push(
        server.api('POST', `/v1/workshops/${wid}/cards/${card.id}/ratings`, voter.token, {
          criterium_id: effort.id,
          value: (u * 3 + k) % 5,
        }),
      );
    }
    for (let k = 0; k < 10; k += 1) {
      const card = ideas[(u * 31 + k * 7) % ideas.length]!;
      writes.push(
        server.api('POST', `/v1/workshops/${wid}/cards/${card.id}/comments`, voter.token, {
          content: `Comment ${n++} from voter ${u}`,
        }),
      );
    }
    writes.push(
      server.api('POST', `/v1/workshops/${wid}/cards/${ideas[u]!.id}/items`, voter.token, {
        content: `Follow up ${u}`,
        section_id: section.id,
      }),
    );
    // Bounded concurrency: one voter's writes at a time.
    await Promise.all(writes.splice(0));
  }
  const clusters = cards.filter((c) => c.type === 'cluster');
  const canvas = await server.api('POST', `/v1/workshops/${wid}/canvas`, facilitator.token, {
    name: 'Board',
    background: { cols: 80, rows: 60 },
    zones: Array.from({ length: 12 }, (_, i) => ({
      name: `Zone ${i + 1}`,
      x: (i % 4) * 20,
      y: Math.floor(i / 4) * 20,
      cols: 18,
      rows: 18,
    })),
  });
  for (const [i, zone] of (canvas.zones as Array<{ id: string }>).entries()) {
    await server.api('PUT', `/v1/workshops/${wid}/canvas/zones/${zone.id}`, facilitator.token, {
      cluster_id: clusters[i]!.id,
    });
  }
  return { wid, facilitator };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/** `/health` one request at a time until `until` resolves (or for `ms`), latencies in ms, sorted. */
async function healthLatencies(url: string, until: Promise<unknown> | number): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  if (typeof until === 'number') setTimeout(() => (done = true), until);
  else void until.finally(() => (done = true));
  while (!done) {
    const start = performance.now();
    await fetch(`${url}/health`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - start);
  }
  return latencies.sort((a, b) => a - b);
}

async function exportOnce(server: BenchServer, wid: string, token: string, type: string) {
  const pid = server.process.pid!;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  const started = performance.now();
  const made = (async () => {
    const created = await server.api('POST', `/v1/workshops/${wid}/exports`, token, { type });
    for (;;) {
      const current = await server.api('GET', `/v1/workshops/${wid}/exports/${created.id}`, token);
      if (current.state !== 'pending') return { ...current, seconds: (performance.now() - started) / 1000 };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const latencies = await healthLatencies(server.url, made);
  const result = await made;
  clearInterval(sampler);
  if (result.state !== 'success') throw new Error(`${type} export failed: ${result.message}`);
  const size = (await fetch(result.url).then((r) => r.arrayBuffer())).byteLength;
  return { seconds: result.seconds as number, size, rssGrowth: peak - before, latencies };
}

const server = await startBenchServer();
try {
  const seedStart = performance.now();
  const { wid, facilitator } = await seed(server);
  console.log(
    `seeded ${CARDS} cards with votes, ratings, comments, items and a canvas in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );

  // The worker thread starts on the first export: started here, so each format is timed warm.
  const warm = await server.api('POST', '/v1/workshops', facilitator.token, { title: 'Warm-up' });
  await exportOnce(server, warm.id, facilitator.token, 'native');

  const idle = await healthLatencies(server.url, 2_000);
  const idleP50 = percentile(idle, 50);
  const idleP99 = percentile(idle, 99);
  const healthLimit = 2 * idleP99 + 20;
  console.log(
    `\n/health idle: p50 ${idleP50.toFixed(2)} ms, p99 ${idleP99.toFixed(2)} ms (${idle.length} requests); limit during an export ${healthLimit.toFixed(1)} ms`,
  );
  console.log(
    '\nformat   seconds  cards/s (target)   file KB  RSS growth MB  /health p50  p99 ms (ratio to idle p99)  verdict',
  );
  let allMet = true;
  // BENCH_FORMATS=csv,pdf measures only those.
  const chosen = process.env.BENCH_FORMATS
    ? FORMATS.filter((f) => process.env.BENCH_FORMATS!.split(',').includes(f))
    : FORMATS;
  for (const type of chosen) {
    const run = await exportOnce(server, wid, facilitator.token, type);
    const perSecond = CARDS / run.seconds;
    const p50 = percentile(run.latencies, 50);
    const p99 = percentile(run.latencies, 99);
    const met = perSecond >= TARGET_CARDS_PER_S[type] && run.rssGrowth <= 300 && p99 <= healthLimit;
    allMet &&= met;
    console.log(
      `${type.padEnd(8)} ${run.seconds.toFixed(2).padStart(7)}  ${Math.round(perSecond).toString().padStart(7)} (≥${TARGET_CARDS_PER_S[type]})`.padEnd(
        36,
      ) +
        `${(run.size / 1024).toFixed(0).padStart(7)}  ${run.rssGrowth.toFixed(0).padStart(13)}  ${p50.toFixed(2).padStart(11)}  ${p99.toFixed(2).padStart(6)} (${(p99 / idleP99).toFixed(2)}×)`.padEnd(
          50,
        ) +
        `  ${met ? 'met' : 'NOT met'}`,
    );
  }
  console.log(`\n${allMet ? 'every target met' : 'some targets NOT met'}`);
} finally {
  await server.stop();
}
