import type { AppDeps } from '../../deps';
import { AppError } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { loadAccess } from '../access/load';
import { authorize } from '../access/rules';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { timerOf, upsertTimer } from './repo';
import { toTimer, type TimerInput, type TimerRow } from './schemas';
import type { TimerOutput } from '../../domain/timer';
import { msg } from '../../i18n/messages';

/** GET /v1/workshops/:id/timer (members). */
export async function getTimer(deps: AppDeps, user: UserRow, workshopId: string): Promise<TimerOutput> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, user);
  return toTimer(await timerOf(db, workshopId));
}

/**
 * PUT /v1/workshops/:id/timer (facilitators): start or restart (`duration_s`), pause, resume, stop,
 * or add time (`add_s`, never below zero left). A change the timer's state does not allow (pausing
 * a stopped timer) is a 409 `conflict`. Logged as `changeTimer`, sent as `timer:changed`.
 */
export function changeTimer(deps: AppDeps, user: UserRow, workshopId: string, input: TimerInput): Promise<TimerOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const now = Date.now();
    const before = await timerOf(tx, workshopId);
    const next = nextTimer(before, input, now);
    const row = await upsertTimer(tx, workshopId, next);
    const [old, timer] = [toTimer(before, now), toTimer(row, now)];
    const changed = diffFields(old, timer, ['state', 'duration_s', 'ends_at', 'remaining_s']);
    // Like any PUT that changes nothing (adding 0 s), nothing is logged or sent.
    if (Object.keys(changed).length > 0)
      changes.record({ workshopId, action: 'changeTimer', userId: user.id, change: { timer, changes: changed } });
    return timer;
  });
}

function nextTimer(
  before: TimerRow | undefined,
  input: TimerInput,
  now: number,
): Omit<TimerRow, 'workshopId' | 'updatedAt'> {
  const state = before?.state ?? 'stopped';
  const refuse = (action: 'pause' | 'resume' | 'stop' | 'add') =>
    new AppError('conflict', msg('error.timer.refused', { state, action }));
  if (input.duration_s !== undefined) {
    return {
      state: 'running',
      durationS: input.duration_s,
      endsAt: new Date(now + input.duration_s * 1000).toISOString(),
      remainingMs: 0,
    };
  }
  if (!before || state === 'stopped') throw refuse(input.action ?? 'add');
  const left = state === 'running' ? Math.max(0, Date.parse(before.endsAt!) - now) : before.remainingMs;
  if (input.add_s !== undefined) {
    const remaining = Math.max(0, left + input.add_s * 1000);
    return state === 'running'
      ? { state, durationS: before.durationS, endsAt: new Date(now + remaining).toISOString(), remainingMs: 0 }
      : { state, durationS: before.durationS, endsAt: null, remainingMs: remaining };
  }
  switch (input.action) {
    case 'pause':
      if (state !== 'running') throw refuse('pause');
      return { state: 'paused', durationS: before.durationS, endsAt: null, remainingMs: left };
    case 'resume':
      if (state !== 'paused') throw refuse('resume');
      return {
        state: 'running',
        durationS: before.durationS,
        endsAt: new Date(now + left).toISOString(),
        remainingMs: 0,
      };
    default:
      return { state: 'stopped', durationS: before.durationS, endsAt: null, remainingMs: 0 };
  }
}
