/*
 * The workshop's one timer (docs/api.md#timer): started for a number of minutes, paused, resumed,
 * a minute added, reset. The server keeps it; this counts down to its `ends_at` like every screen,
 * shifted by the difference between this device's clock and the server's.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { timerRemainingMs } from 'workshop-sdk/live';
import { clockText } from '../../../shared/step';
import { api } from '../../api';
import { Panel, Problem, onSubmit, useAction } from '../../forms';
import type { WorkshopScope } from '../context';
import { t } from '../../i18n';

/** How often the count redraws while the timer runs: often enough that no second is skipped. */
const TICK_MS = 250;

type TimerBody = { duration_s: number } | { action: 'pause' | 'resume' | 'stop' } | { add_s: number };

export function TimerControls({ scope }: { scope: WorkshopScope }) {
  const state = scope.state.value;
  const { timer } = state;
  const now = useSignal(Date.now());
  const minutes = useSignal('5');
  const change = useAction();
  useEffect(() => {
    if (timer.state !== 'running') return;
    const ticking = setInterval(() => (now.value = Date.now()), TICK_MS);
    return () => clearInterval(ticking);
  }, [timer.state]);

  const send = (body: TimerBody) =>
    change.run(() =>
      api.put('/v1/workshops/{workshop_id}/timer', { params: { path: { workshop_id: scope.id } }, body }),
    );
  const start = () => send({ duration_s: Math.round(Number(minutes.value) * 60) });
  const remaining = timerRemainingMs(state, Math.max(now.value, Date.now()));
  const busy = change.busy.value;

  return (
    <Panel title={t('console.run.timer.title')} class="run-timer">
      <p class="run-clock" data-state={timer.state}>
        <span class="run-clock-time" role="timer" aria-label={t('console.run.timer.time_left')}>
          {clockText(remaining)}
        </span>
        <span class="run-clock-state">{t('console.run.timer.state', { state: timer.state })}</span>
      </p>
      <form class="run-timer-start" onSubmit={onSubmit(start)}>
        <label>
          {t('console.run.timer.minutes')}
          <input
            type="number"
            inputMode="decimal"
            min="0.1"
            max="1440"
            step="any"
            required
            value={minutes.value}
            onInput={(event) => (minutes.value = event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {timer.state === 'stopped' ? t('console.run.timer.start') : t('console.run.timer.restart')}
        </button>
      </form>
      <div class="run-timer-actions">
        {timer.state === 'paused' ? (
          <button type="button" disabled={busy} onClick={() => void send({ action: 'resume' })}>
            {t('console.run.timer.resume')}
          </button>
        ) : (
          <button
            type="button"
            disabled={busy || timer.state !== 'running'}
            onClick={() => void send({ action: 'pause' })}
          >
            {t('console.run.timer.pause')}
          </button>
        )}
        <button type="button" disabled={busy || timer.state === 'stopped'} onClick={() => void send({ add_s: 60 })}>
          {t('console.run.timer.add_minute')}
        </button>
        <button
          type="button"
          disabled={busy || timer.state === 'stopped'}
          onClick={() => void send({ action: 'stop' })}
        >
          {t('console.run.timer.reset')}
        </button>
      </div>
      <Problem action={change} />
    </Panel>
  );
}
