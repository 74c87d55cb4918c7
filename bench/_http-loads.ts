/**
 * The loads of the HTTP bench (bench/http.ts, whose header says what each measures), each run by
 * autocannon, and the data they run on: every server is seeded with a 500-card workshop (50
 * clusters of 9 ideas), 20 more workshops of 10 clusters each, and 50 voters who joined all of them.
 */
import autocannon from 'autocannon';
import type { BenchServer } from './_server';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const CONNECTIONS = 50;
const SPREAD_WORKSHOPS = 20;
/** The votes cast into another workshop while the workshop is read (`workshop-busy`). */
const BUSY_VOTES_PER_S = 1_500;

/** Every load, in the order each round runs them. */
export const LOADS = [
  'ceiling',
  'workshop',
  'precomputed',
  'cards',
  'votes',
  'votes-20',
  'workshop-busy',
  'card-writes',
];

export interface Row {
  name: string;
  requestsPerSec: number;
  okPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(name: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  return {
    name,
    requestsPerSec: result.requests.average,
    okPerSec: result['2xx'] / (result.duration || DURATION_S),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/** Every user may put many points on one card, so the vote loads measure writes, not refusals. */
const UNLIMITED = { vote_limit: { positive: -1, negative: -1, max_positive: 100_000, max_negative: 100_000 } };

/** The measured workshop: 50 clusters of 9 ideas each. */
async function seedMeasured(server: BenchServer, token: string) {
  const workshop = await server.api('POST', '/v1/workshops', token, { title: 'Bench workshop' });
  const wid = workshop.id as string;
  await server.api('PUT', `/v1/workshops/${wid}`, token, UNLIMITED);
  const cardIds: string[] = [];
  for (let c = 0; c < 50; c++) {
    const cluster = await server.api('POST', `/v1/workshops/${wid}/cards`, token, {
      type: 'cluster',
      title: `Cluster ${c}`,
      color: 'blue',
    });
    cardIds.push(cluster.id);
    for (let i = 0; i < 9; i++) {
      const idea = await server.api('POST', `/v1/workshops/${wid}/cards`, token, {
        type: 'idea',
        parent: cluster.id,
        title: `Idea ${c}.${i}`,
        content: 'A sentence or two of content, as participants usually write on a card.',
      });
      cardIds.push(idea.id);
    }
  }
  return { wid, cardIds };
}

/** One of the workshops the votes are spread over: 10 clusters. */
async function seedSpread(server: BenchServer, token: string, w: number) {
  const other = await server.api('POST', '/v1/workshops', token, { title: `Spread ${w}` });
  await server.api('PUT', `/v1/workshops/${other.id}`, token, UNLIMITED);
  const ids: string[] = [];
  for (let c = 0; c < 10; c++) {
    const cluster = await server.api('POST', `/v1/workshops/${other.id}/cards`, token, {
      type: 'cluster',
      title: `Cluster ${c}`,
    });
    ids.push(cluster.id);
  }
  const code = (await server.api('GET', `/v1/workshops/${other.id}/access_code`, token)).access_code;
  return { wid: other.id as string, cardIds: ids, code: code as string };
}

/** The 50 voters, each having joined every workshop of `codes` in turn; their tokens. */
async function joinVoters(server: BenchServer, codes: string[]): Promise<string[]> {
  const voters: string[] = [];
  for (let u = 0; u < 50; u++) {
    const user = await server.signup(`Voter ${u}`);
    for (const access_code of codes) await server.api('POST', '/v1/workshops/join', user.token, { access_code });
    voters.push(user.token);
  }
  return voters;
}

/** Seeds a server; under `privateStep`, a private, anonymous step is current in the measured workshop. */
export async function seed(server: BenchServer, privateStep: boolean) {
  const facilitator = await server.signup('Facilitator');
  const { wid, cardIds } = await seedMeasured(server, facilitator.token);
  const spread: Array<{ wid: string; cardIds: string[]; code: string }> = [];
  for (let w = 0; w < SPREAD_WORKSHOPS; w++) spread.push(await seedSpread(server, facilitator.token, w));
  const { access_code } = await server.api('GET', `/v1/workshops/${wid}/access_code`, facilitator.token);
  const voters = await joinVoters(server, [access_code, ...spread.map((other) => other.code)]);
  if (privateStep) {
    // A release without the two prefs drops them: it runs the same step with its usual rights.
    const step = await server.api('POST', `/v1/workshops/${wid}/steps`, facilitator.token, {
      name: 'Alone',
      prefs: { cards_visible: 'own', authors: 'hidden' },
    });
    await server.api('PUT', `/v1/workshops/${wid}`, facilitator.token, { current_step_id: step.id });
  }
  // Reads are a participant's under a private step: theirs is the path it changes.
  return { wid, facilitator, reader: privateStep ? voters[0]! : facilitator.token, cardIds, voters, spread };
}

export type Seeded = Awaited<ReturnType<typeof seed>>;

/** A server measured: what it is, and its rows by load, one per round. */
export interface Measured {
  label: string;
  server: BenchServer;
  seeded: Seeded;
  /** The loads it takes part in (all unless told). */
  only?: string[];
  rows: Map<string, Row[]>;
}

/** Votes of the 50 voters, each connection voting into the workshop `workshopOf` gives it. */
function votes(
  server: BenchServer,
  seeded: Seeded,
  name: string,
  workshopOf: (connection: number) => { wid: string; cardIds: string[] },
) {
  let next = 0;
  return load(name, {
    url: server.url,
    setupClient(client) {
      const connection = next++;
      const token = seeded.voters[connection % seeded.voters.length]!;
      const target = workshopOf(connection);
      client.setHeaders({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
      client.setRequests([
        {
          method: 'POST',
          setupRequest(request) {
            const card = target.cardIds[Math.floor(Math.random() * target.cardIds.length)];
            return {
              ...request,
              path: `/v1/workshops/${target.wid}/cards/${card}/votes`,
              body: JSON.stringify({ value: 1 }),
            };
          },
        },
      ]);
    },
  });
}

/**
 * Ideas written by the 50 voters into the 20 spread workshops, one transaction each (no batching):
 * the write path whose commits each wait for the disk on SQLite with `synchronous = FULL`.
 */
function cardWrites(server: BenchServer, seeded: Seeded, name: string) {
  let next = 0;
  return load(name, {
    url: server.url,
    setupClient(client) {
      const connection = next++;
      const token = seeded.voters[connection % seeded.voters.length]!;
      const target = seeded.spread[connection % SPREAD_WORKSHOPS]!;
      client.setHeaders({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
      client.setRequests([
        {
          method: 'POST',
          setupRequest(request) {
            const parent = target.cardIds[Math.floor(Math.random() * target.cardIds.length)];
            return {
              ...request,
              path: `/v1/workshops/${target.wid}/cards`,
              body: JSON.stringify({ type: 'idea', parent, title: 'An idea written during the bench' }),
            };
          },
        },
      ]);
    },
  });
}

/**
 * The workshop read again while votes flow into another workshop: its cached answer must hold.
 * The votes come at a fixed rate, so every server reads beside the same load.
 */
async function workshopBusy(server: BenchServer, seeded: Seeded, name: string, auth: Record<string, string>) {
  const other = seeded.spread[0]!;
  const busyVotes = autocannon({
    url: server.url,
    connections: 10,
    overallRate: BUSY_VOTES_PER_S,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${seeded.facilitator.token}`, 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: `/v1/workshops/${other.wid}/cards/${other.cardIds[0]}/votes`,
        body: JSON.stringify({ value: 1 }),
      },
    ],
  });
  const row = await load(name, { url: `${server.url}/v1/workshops/${seeded.wid}`, headers: auth, connections: 40 });
  await busyVotes;
  return row;
}

/** One load on one server. */
export async function runLoad(m: Measured, name: string): Promise<Row> {
  const { server, seeded } = m;
  const { wid } = seeded;
  const auth = { authorization: `Bearer ${seeded.reader}` };
  switch (name) {
    case 'ceiling':
      return load(name, { url: `${server.url}/bench/hello` });
    case 'workshop':
      return load(name, { url: `${server.url}/v1/workshops/${wid}`, headers: auth });
    case 'precomputed': {
      const listBytes = (
        await fetch(`${server.url}/v1/workshops/${wid}/cards`, { headers: auth }).then((r) => r.arrayBuffer())
      ).byteLength;
      return load(name, { url: `${server.url}/bench/precomputed?bytes=${listBytes}` });
    }
    case 'cards':
      return load(name, { url: `${server.url}/v1/workshops/${wid}/cards`, headers: auth });
    case 'votes':
      return votes(server, seeded, name, () => ({ wid, cardIds: seeded.cardIds }));
    case 'votes-20':
      return votes(server, seeded, name, (connection) => seeded.spread[connection % SPREAD_WORKSHOPS]!);
    case 'card-writes':
      return cardWrites(server, seeded, name);
    default:
      return workshopBusy(server, seeded, name, auth);
  }
}
