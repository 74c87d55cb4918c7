import type { WorkshopCanvas } from '../../client-sdk/src/canvas';
import type { FleetUser } from './fleet-scene';

/*
 * A workshop's worth of people writing at once, through the load balancer, for fault tests: each
 * participant adds ideas, votes and comments in a loop, and canvas clients move cards. What the
 * service acknowledged (a 2xx) is recorded, to be found stored afterwards; how every other answer
 * went is counted, so a test can hold the contract's line: a 503 or a refused connection while
 * something is down, never a 500 and never a request left hanging.
 */

export interface LoadOptions {
  /** The base URL requests go to (the proxy). */
  url: string;
  workshopId: string;
  clusterId: string;
  participants: FleetUser[];
  /** Canvas clients moving cards (connected already). */
  canvases?: WorkshopCanvas[];
  /** Pause between one participant's requests. */
  thinkMs?: number;
  /** A request answering later than this counts as hanging. */
  hangMs?: number;
}

export interface LoadReport {
  cards: string[];
  votes: string[];
  comments: string[];
  /** Answers by status (0: no answer, the connection failed or was cut). */
  statuses: Map<number, number>;
  /** Answers that break the contract: a 5xx other than 503, a 503 without Retry-After, or a hang. */
  violations: string[];
  /** The slowest answer, in ms. */
  slowestMs: number;
  moves: number;
}

export interface RunningLoad {
  report: LoadReport;
  /** Acknowledged writes so far (cards, votes, comments). */
  acknowledged(): number;
  /** Stops every loop and resolves once the requests in flight ended. */
  stop(): Promise<LoadReport>;
}

export function startLoad(options: LoadOptions): RunningLoad {
  const thinkMs = options.thinkMs ?? 100;
  const hangMs = options.hangMs ?? 5_000;
  const report: LoadReport = {
    cards: [],
    votes: [],
    comments: [],
    statuses: new Map(),
    violations: [],
    slowestMs: 0,
    moves: 0,
  };
  let running = true;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const pick = <T>(list: T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

  const send = async (user: FleetUser, path: string, body: unknown): Promise<{ id: string } | null> => {
    const started = Date.now();
    let status = 0;
    try {
      const res = await fetch(`${options.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
        body: JSON.stringify(body),
        // Past this the request is abandoned and counted as hanging.
        signal: AbortSignal.timeout(hangMs + 3_000),
      });
      status = res.status;
      const text = await res.text();
      if (status >= 500 && status !== 503) report.violations.push(`${status} on POST ${path}: ${text.slice(0, 200)}`);
      if (status === 503 && !res.headers.get('retry-after'))
        report.violations.push(`503 without Retry-After on POST ${path}`);
      return res.ok ? (JSON.parse(text) as { id: string }) : null;
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        report.violations.push(`no answer within ${hangMs + 3_000} ms on POST ${path}`);
      return null;
    } finally {
      const ms = Date.now() - started;
      report.slowestMs = Math.max(report.slowestMs, ms);
      if (ms > hangMs && status !== 0) report.violations.push(`answered ${status} after ${ms} ms on POST ${path}`);
      report.statuses.set(status, (report.statuses.get(status) ?? 0) + 1);
    }
  };

  const inWorkshop = `/v1/workshops/${options.workshopId}`;
  const participantLoop = async (user: FleetUser, index: number) => {
    for (let i = 0; running; i++) {
      const roll = Math.random();
      const card = pick(report.cards);
      if (roll < 0.4 || !card) {
        const made = await send(user, `${inWorkshop}/cards`, {
          type: 'idea',
          title: `Idea ${index}.${i}`,
          parent: options.clusterId,
        });
        if (made) report.cards.push(made.id);
      } else if (roll < 0.8) {
        const vote = await send(user, `${inWorkshop}/cards/${card}/votes`, { value: 1 });
        if (vote) report.votes.push(vote.id);
      } else {
        const comment = await send(user, `${inWorkshop}/cards/${card}/comments`, { content: `Comment ${index}.${i}` });
        if (comment) report.comments.push(comment.id);
      }
      await sleep(thinkMs * (0.5 + Math.random()));
    }
  };

  const canvasLoop = async (canvas: WorkshopCanvas) => {
    while (running) {
      const card = pick(report.cards);
      // A card made moments ago may not have reached this client's document yet.
      if (card && canvas.placement(card)) {
        canvas.moveCard(card, { x: Math.round(Math.random() * 2_000), y: Math.round(Math.random() * 1_000) });
        report.moves += 1;
      }
      await sleep(thinkMs * 2);
    }
  };

  const loops = [...options.participants.map(participantLoop), ...(options.canvases ?? []).map(canvasLoop)];
  return {
    report,
    acknowledged: () => report.cards.length + report.votes.length + report.comments.length,
    async stop() {
      running = false;
      await Promise.all(loops);
      return report;
    },
  };
}
