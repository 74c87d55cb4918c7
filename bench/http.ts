/**
 * REST throughput: autocannon against, in one run, a hello-JSON route of the same app (the
 * ceiling), GET /v1/workshops/:id, GET …/cards of a 500-card workshop beside a route serving a
 * precomputed body of the same size, and POST …/votes by 50 users. The server runs with
 * production's configuration (every request logged to a file). Prints requests/s, p50, p99 and
 * each one's ratio to its baseline.
 *
 * Targets (2 cores, load generator on the same machine): GET workshop ≥ 0.50 of the ceiling, the
 * 500-card list ≥ 0.80 of the precomputed body, votes ≥ 0.25 of the ceiling with p99 ≤ 40 ms.
 */
import autocannon from 'autocannon';
import { startBenchServer, type BenchServer } from './_server';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;

interface Row {
  name: string;
  requestsPerSec: number;
  okPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(name: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  const ok = result['2xx'];
  return {
    name,
    requestsPerSec: result.requests.average,
    okPerSec: ok / (result.duration || DURATION_S),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

async function seed(server: BenchServer) {
  const facilitator = await server.signup('Facilitator');
  const workshop = await server.api('POST', '/v1/workshops', facilitator.token, { title: 'Bench workshop' });
  const wid = workshop.id as string;
  // Every user may put many points on one card, so the vote bench measures writes, not refusals.
  await server.api('PUT', `/v1/workshops/${wid}`, facilitator.token, { vote_limit: { positive: -1, negative: -1, max_positive: 100_000, max_negative: 100_000 } });
  const cardIds: string[] = [];
  for (let c = 0; c < 50; c++) {
    const cluster = await server.api('POST', `/v1/workshops/${wid}/cards`, facilitator.token, { type: 'cluster', title: `Cluster ${c}`, color: 'blue' });
    cardIds.push(cluster.id);
    for (let i = 0; i < 9; i++) {
      const idea = await server.api('POST', `/v1/workshops/${wid}/cards`, facilitator.token, {
        type: 'idea',
        parent: cluster.id,
        title: `Idea ${c}.${i}`,
        content: 'A sentence or two of content, as participants usually write on a card.',
      });
      cardIds.push(idea.id);
    }
  }
  const { access_code } = await server.api('GET', `/v1/workshops/${wid}/access_code`, facilitator.token);
  const voters: string[] = [];
  for (let u = 0; u < 50; u++) {
    const user = await server.signup(`Voter ${u}`);
    await server.api('POST', '/v1/workshops/join', user.token, { access_code });
    voters.push(user.token);
  }
  return { wid, facilitator, cardIds, voters };
}

const server = await startBenchServer();
try {
  const { wid, facilitator, cardIds, voters } = await seed(server);
  const auth = { authorization: `Bearer ${facilitator.token}` };
  const rows: Row[] = [];

  rows.push(await load('hello JSON (ceiling)', { url: `${server.url}/bench/hello` }));
  rows.push(await load('GET /v1/workshops/:id', { url: `${server.url}/v1/workshops/${wid}`, headers: auth }));
  const listBytes = (await fetch(`${server.url}/v1/workshops/${wid}/cards`, { headers: auth }).then((r) => r.arrayBuffer())).byteLength;
  rows.push(await load(`precomputed ${Math.round(listBytes / 1024)} KB body`, { url: `${server.url}/bench/precomputed?bytes=${listBytes}` }));
  rows.push(await load('GET …/cards (500 cards)', { url: `${server.url}/v1/workshops/${wid}/cards`, headers: auth }));

  let nextVoter = 0;
  rows.push(
    await load('POST …/votes (50 users)', {
      url: server.url,
      setupClient(client) {
        const token = voters[nextVoter++ % voters.length]!;
        client.setHeaders({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
      },
      requests: [
        {
          method: 'POST',
          setupRequest(request) {
            const card = cardIds[Math.floor(Math.random() * cardIds.length)];
            return { ...request, path: `/v1/workshops/${wid}/cards/${card}/votes`, body: JSON.stringify({ value: 1 }) };
          },
        },
      ],
    }),
  );

  // The workshop read again while votes flow into another workshop: its cached answer must hold.
  const other = await server.api('POST', '/v1/workshops', facilitator.token, { title: 'Busy workshop' });
  await server.api('PUT', `/v1/workshops/${other.id}`, facilitator.token, { vote_limit: { positive: -1, negative: -1, max_positive: 100_000, max_negative: 100_000 } });
  const busyCard = await server.api('POST', `/v1/workshops/${other.id}/cards`, facilitator.token, { type: 'cluster', title: 'Busy', color: 'blue' });
  const busyVotes = autocannon({
    url: server.url,
    connections: 10,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${facilitator.token}`, 'content-type': 'application/json' },
    requests: [{ method: 'POST', path: `/v1/workshops/${other.id}/cards/${busyCard.id}/votes`, body: JSON.stringify({ value: 1 }) }],
  });
  rows.push(await load('GET workshop, votes elsewhere', { url: `${server.url}/v1/workshops/${wid}`, headers: auth, connections: 40 }));
  const busy = await busyVotes;
  console.log(`(meanwhile ${Math.round(busy['2xx'] / (busy.duration || DURATION_S))} votes/s were cast in another workshop)`);

  const ceiling = rows[0]!.requestsPerSec;
  console.log(`\n${DURATION_S} s each, ${CONNECTIONS} connections, server and load generator on the same machine`);
  console.log('route                          req/s   2xx/s   p50 ms  p99 ms  non-2xx  ratio to ceiling');
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(30)} ${row.requestsPerSec.toFixed(0).padStart(6)} ${row.okPerSec.toFixed(0).padStart(7)} ${String(row.p50).padStart(8)} ${String(row.p99).padStart(7)} ${String(row.non2xx).padStart(8)}  ${(row.requestsPerSec / ceiling).toFixed(2)}`,
    );
  }
  const [, workshopRow, precomputedRow, cardsRow, votesRow, busyRow] = rows;
  const ratio = (row: Row, base: number) => row.okPerSec / base;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  console.log('\ntargets:');
  console.log(`  GET workshop ≥ 0.50 of ceiling: ${ratio(workshopRow!, ceiling).toFixed(2)} ${verdict(ratio(workshopRow!, ceiling) >= 0.5)}`);
  console.log(`  GET workshop while votes flow elsewhere ≥ 0.50 of ceiling: ${ratio(busyRow!, ceiling).toFixed(2)} ${verdict(ratio(busyRow!, ceiling) >= 0.5)}`);
  const listRatio = ratio(cardsRow!, precomputedRow!.requestsPerSec);
  console.log(`  500-card list ≥ 0.80 of the precomputed body: ${listRatio.toFixed(2)} ${verdict(listRatio >= 0.8)}`);
  const votesRatio = ratio(votesRow!, ceiling);
  console.log(`  votes ≥ 0.25 of ceiling, p99 ≤ 40 ms: ${votesRatio.toFixed(2)}, p99 ${votesRow!.p99} ms ${verdict(votesRatio >= 0.25 && votesRow!.p99 <= 40)}`);
} finally {
  await server.stop();
}
