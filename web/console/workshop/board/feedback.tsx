/*
 * What people gave one card, as its detail shows it: votes and the ratings on each criterion, the
 * items by section, the comments (with a form to add one) and the attached files. Read over REST
 * when the card opens, and again when a logged change may have touched them.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import type { Attachment, Card, Comment, Vote } from 'workshop-sdk';
import { api } from '../../api';
import { Problem, onSubmit, useAction } from '../../forms';
import { rich, t } from '../../i18n';
import { write } from '../../outbox';
import { nameOf } from './model';
import type { WorkshopScope } from '../context';
import { YourRatings, YourVotes } from './own-feedback';
import type { OwnVotes } from './own-votes';
import { useReread } from './reread';
import { scaleText } from './results';
import { momentOf } from '../../dates';

type Full = Awaited<ReturnType<typeof readCard>>;
interface Loaded {
  card: Full;
  comments: Comment[];
  attachments: Attachment[];
  votes: Vote[];
  names: Map<string, string>;
}

/** The changes after which a card's feedback is read again (their action or event names). */
const TOUCHES_FEEDBACK = /Comment|comment:|Item|Attachment|Vote|Rating|Criteri|Section|score:|Member/;

function readCard(workshopId: string, id: string) {
  return api.get('/v1/workshops/{workshop_id}/cards/{id}', {
    params: { path: { workshop_id: workshopId, id }, query: { attributes: 'sections,criteria' } },
  });
}

async function readFeedback(workshopId: string, id: string): Promise<Loaded> {
  const onCard = { params: { path: { workshop_id: workshopId, card_id: id } } };
  const [card, comments, attachments, votes, members] = await Promise.all([
    readCard(workshopId, id),
    api.get('/v1/workshops/{workshop_id}/cards/{card_id}/comments', onCard),
    api.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', onCard),
    api.get('/v1/workshops/{workshop_id}/cards/{card_id}/votes', onCard),
    api.get('/v1/workshops/{workshop_id}/user_roles', { params: { path: { workshop_id: workshopId } } }),
  ]);
  return { card, comments, attachments, votes, names: new Map(members.map((m) => [m.user_id, m.name])) };
}

export function Feedback({ scope, card, own }: { scope: WorkshopScope; card: Card; own: OwnVotes | null }) {
  const loaded = useSignal<Loaded | null>(null);
  const load = useAction();
  useReread(scope, TOUCHES_FEEDBACK, load, async () => (loaded.value = await readFeedback(scope.id, card.id)), [
    card.id,
  ]);

  const data = loaded.value;
  return (
    <div class="feedback">
      <Problem action={load} />
      {!data ? (
        <p role="status">{t('console.loading')}</p>
      ) : (
        <>
          <Scores scope={scope} card={card} data={data} own={own} />
          <Items data={data} />
          <Comments scope={scope} card={card} data={data} />
          <Files data={data} />
        </>
      )}
    </div>
  );
}

function Scores({ scope, card, data, own }: { scope: WorkshopScope; card: Card; data: Loaded; own: OwnVotes | null }) {
  const count = data.votes.length;
  return (
    <section aria-labelledby="detail-scores">
      <h3 id="detail-scores">{t('console.board.feedback.scores')}</h3>
      <p>{t('console.board.feedback.score', { score: card.summary.score ?? 0, count })}</p>
      {own && <YourVotes scope={scope} card={card} own={own} />}
      {own && (
        <YourRatings workshopId={scope.id} cardId={card.id} criteria={data.card.criteria ?? []} voter={own.voter} />
      )}
      {(data.card.criteria ?? []).length > 0 && (
        <ul class="plain">
          {data.card.criteria!.map((criterion) => {
            const values = criterion.ratings.map((rating) => rating.value);
            const average = values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
            return (
              <li key={criterion.id}>
                {average === null
                  ? t('console.board.feedback.not_rated', { criterion: criterion.title })
                  : t('console.board.feedback.average', {
                      criterion: criterion.title,
                      average,
                      scale: scaleText(criterion),
                      count: values.length,
                    })}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function Items({ data }: { data: Loaded }) {
  const sections = (data.card.sections ?? []).filter((section) => section.items.length > 0);
  return (
    <section aria-labelledby="detail-items">
      <h3 id="detail-items">{t('console.board.feedback.items')}</h3>
      {sections.length === 0 ? (
        <p class="empty">{t('console.board.feedback.no_items')}</p>
      ) : (
        sections.map((section) => (
          <div key={section.id}>
            <h4>{section.title}</h4>
            <ul class="plain">
              {section.items.map((item) => (
                <li key={item.id}>
                  {rich('console.board.feedback.item', {
                    content: item.content,
                    author: authorOf(data, item.user_id),
                    meta: (words) => <span class="meta">{words}</span>,
                  })}
                </li>
              ))}
            </ul>
          </div>
        ))
      )}
    </section>
  );
}

function Comments(props: { scope: WorkshopScope; card: Card; data: Loaded }) {
  const { scope, card, data } = props;
  const text = useSignal('');
  const waiting = useSignal(false);
  const action = useAction();
  const id = useId();
  const post = () =>
    action.run(async () => {
      // Through the outbox: with the server away it waits, and is posted once the server is back
      // (the list is read again when the comment's event arrives).
      const outcome = await write(t('console.board.feedback.comment_write', { title: nameOf(card) }), {
        method: 'post',
        path: '/v1/workshops/{workshop_id}/cards/{card_id}/comments',
        params: { workshop_id: scope.id, card_id: card.id },
        body: { content: text.value },
      });
      text.value = '';
      waiting.value = outcome === 'waiting';
    });
  return (
    <section aria-labelledby="detail-comments">
      <h3 id="detail-comments">{t('console.board.feedback.comments')}</h3>
      {data.comments.length === 0 ? (
        <p class="empty">{t('console.board.feedback.no_comments')}</p>
      ) : (
        <ul class="comments plain">
          {data.comments.map((comment) => (
            <li key={comment.id}>
              <p class="comment-text">{comment.content}</p>
              <p class="meta">
                {t('console.board.feedback.comment_meta', {
                  author: authorOf(data, comment.user_id),
                  when: momentOf(comment.created_at),
                })}
              </p>
            </li>
          ))}
        </ul>
      )}
      <form class="form" onSubmit={onSubmit(post)}>
        <div class="field">
          <label for={id}>{t('console.board.feedback.add_comment')}</label>
          <textarea
            id={id}
            rows={2}
            required
            value={text.value}
            onInput={(e) => (text.value = e.currentTarget.value)}
          />
        </div>
        <Problem action={action} />
        <p class="row-actions">
          <button type="submit" disabled={action.busy.value}>
            {t('console.board.feedback.post')}
          </button>
          <span role="status" class="done">
            {waiting.value ? t('console.board.feedback.comment_waiting') : ''}
          </span>
        </p>
      </form>
    </section>
  );
}

function Files({ data }: { data: Loaded }) {
  return (
    <section aria-labelledby="detail-files">
      <h3 id="detail-files">{t('console.board.feedback.files')}</h3>
      {data.attachments.length === 0 ? (
        <p class="empty">{t('console.board.feedback.no_files')}</p>
      ) : (
        <ul class="plain">
          {data.attachments.map((file) => (
            <li key={file.id}>
              {rich('console.board.feedback.file', {
                size: sizeText(file.size),
                author: authorOf(data, file.user_id),
                link: () => (
                  <a href={file.url} download={file.name}>
                    {file.name}
                  </a>
                ),
                meta: (words) => <span class="meta">{words}</span>,
              })}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function authorOf(data: Loaded, userId: string | null): string {
  if (userId === null) return t('console.board.feedback.anonymous');
  return data.names.get(userId) ?? t('console.board.feedback.former_member');
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return t('console.board.feedback.size_b', { size: bytes });
  if (bytes < 1024 * 1024) return t('console.board.feedback.size_kb', { size: Math.round(bytes / 1024) });
  return t('console.board.feedback.size_mb', { size: bytes / 1024 / 1024 });
}
