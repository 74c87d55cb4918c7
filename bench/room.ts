/**
 * A room joining (issue: people in the room): N people (500) join one workshop from one address
 * within 60 s, one in ten typing a wrong code first, each with a live state of the workshop (the
 * SDK's `openWorkshop`, in a child process), and each adds two ideas and casts three votes. Once
 * as guests (`POST /v1/workshops/join/guest`), once as signed-up users joining with the code
 * (`POST /v1/workshops/join`; their signups are set up beforehand, not measured), each on a fresh
 * server. Prints join and write latencies, and the time from the last write's answer until every
 * participant's state shows every idea; and the guests' figures as ratios to the users' (goal:
 * ≤ 1.1, a guest costs what a user costs).
 *
 * With `--rounds=N` (3) the two runs alternate N times, users first, and every figure is the median
 * of its rounds: one run's tail is one moment of a shared machine.
 *
 *   npm run bench -- room [--participants=500] [--seconds=60] [--rounds=3]
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Child, percentile } from './_fanout-processes';
import { callApi, startBenchServer, stopAfter, type BenchServer } from './_server';

const flag = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const PARTICIPANTS = flag('participants', 500);
const SECONDS = flag('seconds', 60);
/** Processes the participants' live states are spread over, so that no one process's event loop is what is measured. */
const CLIENT_PROCESSES = flag('client-processes', 4);
const ROUNDS = flag('rounds', 3);
const here = dirname(fileURLToPath(import.meta.url));
// Each run takes the arrival window and a minute or two around it.
stopAfter('room', 5 + ROUNDS * 2 * (SECONDS / 60 + 2));

// The server's real limits on wrong codes per address (bench/server.ts lifts them otherwise).
process.env.BENCH_JOIN_LIMITS = 'default';

interface Figures {
  joins: number[];
  writes: number[];
  settleMs: number;
  refused: number;
  /** Live states that had to be opened again (the server too busy to answer in time). */
  reopened: number;
}

type Mode = 'guests' | 'users';

async function timed<T>(into: number[], send: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const answer = await send();
  into.push(performance.now() - started);
  return answer;
}

async function runRoom(mode: Mode): Promise<Figures> {
  const server: BenchServer = await startBenchServer();
  const clients = Array.from(
    { length: CLIENT_PROCESSES },
    (_, i) =>
      new Child(
        fork(join(here, '_room-clients.ts'), [], {
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        }),
        `room clients ${i}`,
      ),
  );
  try {
    const host = await server.signup('Host');
    const workshop = await server.api('POST', '/v1/workshops', host.token, { title: 'Room' });
    const { access_code: code } = await server.api('GET', `/v1/workshops/${workshop.id}/access_code`, host.token);
    const cluster = await server.api('POST', `/v1/workshops/${workshop.id}/cards`, host.token, {
      type: 'cluster',
      title: 'Ideas',
    });
    const wrongCode = code.replace(/\d$/, (d: string) => String((Number(d) + 1) % 10));
    // Users sign up beforehand: what is measured is joining and taking part, as for guests.
    const accounts =
      mode === 'users'
        ? await Promise.all(Array.from({ length: PARTICIPANTS }, (_, i) => server.signup(`User ${i}`)))
        : [];

    const figures: Figures = { joins: [], writes: [], settleMs: 0, refused: 0, reopened: 0 };
    const ideas: string[] = [];
    const join = async (person: number, accessCode: string): Promise<{ status: number; token?: string }> => {
      const res =
        mode === 'guests'
          ? await fetch(`${server.url}/v1/workshops/join/guest`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ access_code: accessCode, name: `Guest ${person}` }),
            })
          : await fetch(`${server.url}/v1/workshops/join`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${accounts[person]!.token}` },
              body: JSON.stringify({ access_code: accessCode }),
            });
      const body = (await res.json()) as { token?: string };
      return { status: res.status, token: mode === 'guests' ? body.token : accounts[person]!.token };
    };

    const takePart = async (person: number) => {
      if (person % 10 === 0 && (await join(person, wrongCode)).status !== 404) figures.refused += 1;
      const joined = await timed(figures.joins, () => join(person, code));
      if (joined.status !== 200 && joined.status !== 201) {
        figures.refused += 1;
        return;
      }
      const token = joined.token!;
      const holder = clients[person % clients.length]!;
      holder.send({ type: 'open', url: server.url, workshopId: workshop.id, token });
      await holder.next((m) => m.type === 'opened');
      const write = (method: string, path: string, body: unknown) =>
        timed(figures.writes, () => callApi(server.url, method, path, token, body));
      for (let i = 0; i < 2; i++) {
        const idea = await write('POST', `/v1/workshops/${workshop.id}/cards`, {
          type: 'idea',
          title: `Idea ${person}.${i}`,
          parent: cluster.id,
        });
        ideas.push(idea.id);
      }
      for (let i = 0; i < 3; i++) {
        const target = ideas[Math.floor(Math.random() * ideas.length)]!;
        await write('POST', `/v1/workshops/${workshop.id}/cards/${target}/votes`, { value: 1 });
      }
    };

    // People arrive evenly over the window, each taking part as soon as they are in.
    const arrivals: Promise<void>[] = [];
    const gapMs = (SECONDS * 1000) / PARTICIPANTS;
    const started = performance.now();
    for (let person = 0; person < PARTICIPANTS; person++) {
      const due = started + person * gapMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      arrivals.push(takePart(person));
    }
    await Promise.all(arrivals);
    const lastWrite = process.hrtime.bigint();
    for (const holder of clients) holder.send({ type: 'expect', ideas: ideas.length });
    const seen = await Promise.all(
      clients.map((holder) => holder.next<{ at: string; retries: number }>((m) => m.type === 'seen')),
    );
    figures.reopened = seen.reduce((sum, { retries }) => sum + retries, 0);
    const last = seen.reduce((latest, { at }) => (BigInt(at) > latest ? BigInt(at) : latest), 0n);
    figures.settleMs = Math.max(0, Number(last - lastWrite) / 1e6);
    return figures;
  } finally {
    await Promise.all(clients.map((holder) => holder.stop()));
    await server.stop();
  }
}

const show = (ms: number) => `${ms.toFixed(1)} ms`;
const rounds: Record<Mode, Figures[]> = { users: [], guests: [] };
for (let round = 1; round <= ROUNDS; round++) {
  for (const mode of ['users', 'guests'] as const) {
    const figures = await runRoom(mode);
    rounds[mode].push(figures);
    const { joins, writes, settleMs, refused, reopened } = figures;
    console.log(
      `round ${round} ${mode.padEnd(6)}: ${joins.length} joined (${refused} refused, ${reopened} live states opened again); join p50 ${show(percentile(joins, 50))} p99 ${show(percentile(joins, 99))}; ` +
        `${writes.length} writes p50 ${show(percentile(writes, 50))} p99 ${show(percentile(writes, 99))}; every state shows every idea ${show(settleMs)} after the last write`,
    );
  }
}
/** A figure of one mode: the median of its rounds. */
const median = (mode: Mode, of: (f: Figures) => number) => {
  const values = rounds[mode].map(of).sort((a, b) => a - b);
  return values[Math.floor((values.length - 1) / 2)]!;
};
const ratio = (of: (f: Figures) => number) => (median('guests', of) / Math.max(median('users', of), 0.001)).toFixed(2);
for (const mode of ['users', 'guests'] as const) {
  console.log(
    `${mode.padEnd(6)} medians of ${ROUNDS}: join p50 ${show(median(mode, (f) => percentile(f.joins, 50)))} p99 ${show(median(mode, (f) => percentile(f.joins, 99)))}; ` +
      `write p50 ${show(median(mode, (f) => percentile(f.writes, 50)))} p99 ${show(median(mode, (f) => percentile(f.writes, 99)))}; all ideas everywhere ${show(median(mode, (f) => f.settleMs))}`,
  );
}
console.log(
  `guests / users: join p50 ${ratio((f) => percentile(f.joins, 50))}× p99 ${ratio((f) => percentile(f.joins, 99))}×, ` +
    `write p50 ${ratio((f) => percentile(f.writes, 50))}× p99 ${ratio((f) => percentile(f.writes, 99))}×, all ideas everywhere ${ratio((f) => f.settleMs)}× (goal ≤ 1.1).`,
);
if ([...rounds.users, ...rounds.guests].some((f) => f.reopened > 0)) {
  console.log(
    "Live states had to be opened again: the machine was saturated (the participants' states share its cores with the server), and the p99s and the settle time measure that, not the server.",
  );
}
process.exit(0);
