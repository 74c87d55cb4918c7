/**
 * A child process of the room bench holding the participants' live states: for each token it gets
 * over IPC (`open`), `openWorkshop` from the SDK keeps that participant's state of the workshop, as
 * the participant page does. Asked to `expect` a number of ideas, it answers `seen` with the time
 * (`process.hrtime`, the same clock in every process of this machine) at which the last state came
 * to hold them all.
 */
import { createClient } from '../client-sdk/src/index';
import { openWorkshop, type LiveWorkshop } from '../client-sdk/src/live';

interface OpenCommand {
  type: 'open';
  url: string;
  workshopId: string;
  token: string;
}

const states: LiveWorkshop[] = [];
const ideaCounts: number[] = [];
let expected: number | null = null;
let lastReached = 0n;
const send = (message: unknown) => process.send!(message);

function check(): void {
  if (expected === null) return;
  if (ideaCounts.every((count) => count >= expected!)) {
    send({ type: 'seen', at: lastReached.toString(), states: states.length, retries });
    expected = null;
  }
}

/**
 * The participants of one process share one connection pool, which a browser's tabs would not: a
 * read that meets a pooled connection the server just closed (keep-alive) is sent once more.
 */
async function pooledFetch(request: Request): Promise<Response> {
  try {
    return await fetch(request.clone());
  } catch (err) {
    if (request.method !== 'GET') throw err;
    return fetch(request);
  }
}

/** Opens the participant's live state, trying again as a participant's page would while the server is swamped. */
async function openLive(command: OpenCommand): Promise<LiveWorkshop> {
  const api = createClient({ baseUrl: command.url, token: command.token, fetch: pooledFetch });
  for (let attempt = 1; ; attempt++) {
    try {
      return await openWorkshop(api, command.workshopId);
    } catch (err) {
      if (attempt === 5) throw err;
      retries += 1;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** Opens that had to be tried again. */
let retries = 0;

async function open(command: OpenCommand): Promise<void> {
  const live = await openLive(command);
  const index = states.push(live) - 1;
  ideaCounts[index] = 0;
  live.subscribe((state) => {
    const ideas = state.cards.filter((card) => card.type === 'idea').length;
    if (expected !== null && ideas >= expected && ideaCounts[index]! < expected) lastReached = process.hrtime.bigint();
    ideaCounts[index] = ideas;
    check();
  });
  send({ type: 'opened' });
}

process.on('message', (message: OpenCommand | { type: 'expect'; ideas: number }) => {
  if (message.type === 'open') {
    open(message).catch((err: unknown) => {
      console.error('[room clients] opening a live state failed', err);
      process.exit(1);
    });
  } else {
    expected = message.ideas;
    lastReached = process.hrtime.bigint();
    check();
  }
});
process.on('SIGTERM', () => {
  for (const state of states) state.close();
  process.exit(0);
});
