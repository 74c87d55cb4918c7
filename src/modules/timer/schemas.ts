import * as v from 'valibot';
import { TimerOutput } from '../../domain/timer';
import type { Schema } from '../../db/database';
import { said } from '../../i18n/valibot';

export type TimerRow = Schema['workshopTimers']['$inferSelect'];

const MAX_S = 86_400;

/** Exactly one of: start (or restart) for `duration_s`, an `action`, or `add_s` seconds. */
export const TimerInput = v.pipe(
  v.object({
    duration_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_S))),
    action: v.optional(v.picklist(['pause', 'resume', 'stop'])),
    add_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(-MAX_S), v.maxValue(MAX_S))),
  }),
  v.check(
    (input) => [input.duration_s, input.action, input.add_s].filter((member) => member !== undefined).length === 1,
    said('error.validation.timer_one_of'),
  ),
);
export type TimerInput = v.InferOutput<typeof TimerInput>;

/** The timer as it reads at `now`: a running timer past zero reads 0 left. */
export function toTimer(row: TimerRow | undefined, now = Date.now()): TimerOutput {
  if (!row || row.state === 'stopped')
    return readAt(
      { state: 'stopped', duration_s: row?.durationS ?? 0, ends_at: null, remaining_s: 0, server_time: '' },
      now,
    );
  if (row.state === 'paused')
    return readAt(
      {
        state: 'paused',
        duration_s: row.durationS,
        ends_at: null,
        remaining_s: row.remainingMs / 1000,
        server_time: '',
      },
      now,
    );
  return readAt(
    { state: 'running', duration_s: row.durationS, ends_at: row.endsAt, remaining_s: 0, server_time: '' },
    now,
  );
}

/**
 * A timer read again at `now` (an event sent, or replayed, after the change): `server_time` is
 * `now`, and a running timer's `remaining_s` what is left until `ends_at` then.
 */
export function readAt(timer: TimerOutput, now = Date.now()): TimerOutput {
  const remaining_s =
    timer.state === 'running' && timer.ends_at
      ? Math.round(Math.max(0, Date.parse(timer.ends_at) - now)) / 1000
      : timer.remaining_s;
  return { ...timer, remaining_s, server_time: new Date(now).toISOString() };
}
