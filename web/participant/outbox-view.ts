import type { WorkshopState } from 'workshop-sdk/live';
import { t } from '../shared/i18n';
import type { ParticipantSession } from './session';

/*
 * The participant page's outbox and connection lines: what waits on this phone to be sent, what
 * was sent but is not shown yet, and whether the page is offline.
 */

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Fills the outbox section and the connection line from the session's outbox and the live status. */
export function drawOutbox(session: ParticipantSession, state: WorkshopState): void {
  const { outbox, arriving } = session;
  const offline = state.status !== 'live' || outbox.status === 'waiting' || !navigator.onLine;
  const section = byId('outbox');
  section.hidden = outbox.items.length === 0 && arriving.size === 0;
  setText(
    byId('outbox-status'),
    outbox.status === 'waiting'
      ? t('participant.outbox.waiting')
      : outbox.items.length > 0
        ? t('participant.outbox.sending')
        : t('participant.outbox.sent_waiting'),
  );
  const items = [
    ...outbox.items.map(({ key, label }) => [key, label, 'waiting'] as const),
    ...[...arriving].map(([id, label]) => [id, label, 'sent'] as const),
  ].map(([key, label, status]) => {
    const item = document.createElement('li');
    item.dataset.key = key;
    item.className = status;
    item.textContent = status === 'sent' ? t('participant.outbox.sent_item', { label }) : label;
    return item;
  });
  const list = byId('outbox-list');
  if (list.textContent !== items.map((item) => item.textContent).join('')) list.replaceChildren(...items);

  document.body.dataset.status = state.status === 'live' && outbox.status !== 'waiting' ? 'live' : 'offline';
  const connection = byId('connection');
  connection.hidden = !offline;
  setText(connection, outbox.items.length > 0 ? t('participant.outbox.offline_keep') : t('participant.outbox.offline'));
}
