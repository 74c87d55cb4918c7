import * as v from 'valibot';

/**
 * The timer (docs/api.md#timer). `server_time` lets a client correct its own clock before counting
 * down to `ends_at`.
 */
export const TimerOutput = v.object({
  state: v.picklist(['stopped', 'running', 'paused']),
  duration_s: v.number(),
  ends_at: v.nullable(v.string()),
  remaining_s: v.number(),
  server_time: v.string(),
});
export type TimerOutput = v.InferOutput<typeof TimerOutput>;
