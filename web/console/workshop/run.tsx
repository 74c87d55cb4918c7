/*
 * The Run tab: the workshop live, from a laptop beside the projector or a phone in the room. The
 * step and the timer come first (on a phone, what is used most is at the top), then what the
 * screen shows; beside them the board, compact and live, whose cards are spotlit, voted on and
 * rated from their detail; then who is in the room, and how people join.
 */
import { Board } from './board';
import type { OwnVotes } from './board/own-votes';
import type { WorkshopScope } from './context';
import { Access } from './run/access';
import { Room } from './run/room';
import { StepControls } from './run/steps';
import { TimerControls } from './run/timer';
import { ViewControls } from './run/view';
import { t } from '../i18n';

export function Run({ scope, own }: { scope: WorkshopScope; own: OwnVotes | null }) {
  return (
    <div class="run">
      <div class="run-main">
        <StepControls scope={scope} />
        <TimerControls scope={scope} />
        <ViewControls scope={scope} />
      </div>
      <section class="panel run-board" aria-labelledby="run-board-title">
        <h2 id="run-board-title">{t('console.run.live_board')}</h2>
        <Board scope={scope} own={own} inRun />
      </section>
      <div class="run-side">
        <Room scope={scope} />
        <Access scope={scope} />
      </div>
    </div>
  );
}
