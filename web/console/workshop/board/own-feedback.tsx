/*
 * What the facilitator gives a card themselves, from its detail, as participants do on their page:
 * points with − and + within the workshop's budget (the same counter, web/shared/votes.ts) and a
 * rating on each criterion. The server holds the budget; what the buttons offer is worked out
 * from one's own votes so a refusal is said before the press.
 */
import { useEffect, useId } from 'preact/hooks';
import type { Card, Criterion } from 'workshop-sdk';
import { pointsLeft, refusalOf, refusalText, spentOf, type Direction } from '../../../shared/votes';
import { api } from '../../api';
import { Problem, useAction } from '../../forms';
import { rich, t } from '../../i18n';
import type { WorkshopScope } from '../context';
import type { OwnVotes } from './own-votes';

/** Marks, not words: the same in every language, the buttons named by their labels. */
const MINUS = '−';
const PLUS = '+';

export function YourVotes({ scope, card, own }: { scope: WorkshopScope; card: Card; own: OwnVotes }) {
  const press = useAction();
  useEffect(() => own.ensure(), [own]);
  const hintId = useId();
  // The version, read here, redraws this as one's votes change.
  if (own.version.value < 0 || !own.book.loaded)
    return own.failed.value ? (
      <p role="alert">
        {rich('console.board.votes.failed', {
          button: (words) => (
            <button type="button" onClick={() => own.ensure()}>
              {words}
            </button>
          ),
        })}
      </p>
    ) : (
      <p role="status">{t('console.board.votes.counting')}</p>
    );
  const total = spentOf(scope.state.value.cards.flatMap((each) => own.book.values(each.id)));
  const limit = scope.state.value.workshop.vote_limit;
  const values = own.book.values(card.id);
  const onCard = values.reduce((sum, value) => sum + value, 0);
  const left = pointsLeft(limit, total);
  const vote = (direction: Direction) =>
    press.run(async () => {
      const onThisCard = { workshop_id: scope.id, card_id: card.id };
      const withdraw = own.book.toWithdraw(card.id, direction);
      if (withdraw) {
        await api.delete('/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}', {
          params: { path: { ...onThisCard, id: withdraw } },
        });
        own.book.remove(withdraw);
      } else {
        const cast = await api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
          params: { path: onThisCard },
          body: { value: direction },
        });
        own.book.add(card.id, cast);
      }
      own.changed();
    });
  const down = refusalText(refusalOf(-1, values, total, limit), t);
  const up = refusalText(refusalOf(1, values, total, limit), t);
  return (
    <div class="your-votes">
      <p>
        {left === null
          ? t('console.board.votes.on_card', { points: onCard })
          : t('console.board.votes.on_card_left', { points: onCard, left })}
      </p>
      <p class="row-actions">
        <button
          type="button"
          aria-label={t('console.board.votes.take_point')}
          aria-disabled={down !== null || press.busy.value}
          aria-describedby={down === null ? undefined : `${hintId}-down`}
          onClick={() => down === null && void vote(-1)}
        >
          {MINUS}
        </button>
        <button
          type="button"
          aria-label={t('console.board.votes.give_point')}
          aria-disabled={up !== null || press.busy.value}
          aria-describedby={up === null ? undefined : `${hintId}-up`}
          onClick={() => up === null && void vote(1)}
        >
          {PLUS}
        </button>
      </p>
      {/* Why a press would be refused: said with its button; only the + one is shown, as on a participant's page. */}
      {up && (
        <p class="hint" id={`${hintId}-up`}>
          {up}
        </p>
      )}
      {down && (
        <p class="visually-hidden" id={`${hintId}-down`}>
          {down}
        </p>
      )}
      <Problem action={press} />
    </div>
  );
}

/** One's own rating on each criterion: chosen from the criterion's scale, changed or taken back. */
export function YourRatings(props: { workshopId: string; cardId: string; criteria: Criterion[]; voter: string }) {
  const action = useAction();
  const id = useId();
  const rate = (criterion: Criterion, chosen: string) =>
    action.run(async () => {
      const mine = criterion.ratings.find((rating) => rating.user_id === props.voter);
      const onCard = { workshop_id: props.workshopId, card_id: props.cardId };
      if (chosen === '') {
        if (mine)
          await api.delete('/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}', {
            params: { path: { ...onCard, id: mine.id } },
          });
      } else if (mine) {
        await api.put('/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}', {
          params: { path: { ...onCard, id: mine.id } },
          body: { value: Number(chosen) },
        });
      } else {
        await api.post('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
          params: { path: onCard },
          body: { value: Number(chosen), criterium_id: criterion.id },
        });
      }
    });
  if (props.criteria.length === 0) return null;
  return (
    <div class="your-ratings">
      {props.criteria.map((criterion, index) => {
        const mine = criterion.ratings.find((rating) => rating.user_id === props.voter);
        return (
          <div class="field" key={criterion.id}>
            <label for={`${id}-${index}`}>{t('console.board.votes.your_rating', { criterion: criterion.title })}</label>
            <select
              id={`${id}-${index}`}
              value={mine ? String(mine.value) : ''}
              disabled={action.busy.value}
              onChange={(event) => void rate(criterion, event.currentTarget.value)}
            >
              <option value="">{t('console.board.votes.not_rated')}</option>
              {criterion.current_scale.map((value) => (
                <option key={value} value={String(value)}>
                  {value}
                </option>
              ))}
            </select>
          </div>
        );
      })}
      <Problem action={action} />
    </div>
  );
}
