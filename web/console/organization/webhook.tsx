/*
 * One webhook endpoint: its URL, events and state; sending it a test `ping`, rotating its signing
 * secret (the new one shown once; the previous one also signs for 24 hours), turning it off and on,
 * deleting it, asked first in words; and its recent deliveries with their status and time, a failed
 * one sent again with **Retry**. While a delivery is pending the list is read again every 1.5
 * seconds, so a ping's outcome shows without a reload; otherwise when asked (**Read again**).
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { ConfirmButton, Problem, useAction } from '../forms';
import { Deliveries } from './deliveries';
import { SecretOnce } from '../secret-once';
import type { Delivery, Webhook } from './types';
import { dayOf, momentOf } from '../dates';
import { rich, t } from '../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

/** How many recent deliveries each endpoint shows. */
const RECENT = 10;
/** How often the deliveries are read again while one is pending. */
const PENDING_POLL_MS = 1500;

export function WebhookRow(props: {
  organizationId: string;
  webhook: Webhook;
  onChange: () => Promise<unknown>;
  onDeleted: () => Promise<void>;
}) {
  const { organizationId, webhook } = props;
  const path = { params: { path: { id: organizationId, webhook_id: webhook.id } } };
  const deliveries = useSignal<Delivery[] | null>(null);
  const reading = useAction();
  const acting = useAction();
  const told = useSignal('');
  const rotated = useSignal<string | null>(null);
  /** Bumped to read the deliveries again now (after a ping, a retry). */
  const reads = useSignal(0);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let gone = false;
    const read = async () => {
      const done = await reading.run(async () => {
        deliveries.value = await api.get('/v1/organizations/{id}/webhooks/{webhook_id}/deliveries', {
          ...path,
          params: { ...path.params, query: { per_page: RECENT } },
        });
      });
      if (!gone && done && deliveries.value?.some((delivery) => delivery.status === 'pending'))
        timer = setTimeout(() => void read(), PENDING_POLL_MS);
    };
    void read();
    return () => {
      gone = true;
      clearTimeout(timer);
    };
  }, [webhook.id, reads.value]);

  const act = (work: () => Promise<void>) =>
    acting.run(async () => {
      told.value = '';
      await work();
    });
  const ping = () =>
    act(async () => {
      await api.post('/v1/organizations/{id}/webhooks/{webhook_id}/test', path);
      told.value = t('console.organization.webhooks.ping_sent');
      reads.value++;
    });
  const rotate = () =>
    act(async () => {
      const { secret } = await api.post('/v1/organizations/{id}/webhooks/{webhook_id}/rotate_secret', path);
      rotated.value = secret;
    });
  const setEnabled = (enabled: boolean) =>
    act(async () => {
      await api.put('/v1/organizations/{id}/webhooks/{webhook_id}', { ...path, body: { enabled } });
      told.value = t('console.organization.webhooks.turned', { enabled: enabled ? 'yes' : 'no' });
      await props.onChange();
    });
  const remove = () =>
    act(async () => {
      await api.delete('/v1/organizations/{id}/webhooks/{webhook_id}', path);
      await props.onDeleted();
    });
  const retry = (delivery: Delivery) =>
    act(async () => {
      await api.post('/v1/organizations/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
        params: { path: { id: organizationId, webhook_id: webhook.id, delivery_id: delivery.id } },
      });
      told.value = t('console.organization.webhooks.retried', { event: delivery.event_type });
      reads.value++;
    });

  const events = webhook.events.includes('*')
    ? t('console.organization.webhooks.every_event')
    : webhook.events.join(', ');
  return (
    <li class="webhook-row" data-webhook={webhook.id}>
      <div class="webhook-text">
        <span class="webhook-url">{webhook.url}</span>
        {webhook.description && <span class="meta webhook-description"> {webhook.description}</span>}
        <dl class="token-facts">
          <div>
            <dt>{t('console.fields.events')}</dt>
            <dd class="webhook-events">{events}</dd>
          </div>
          <div>
            <dt>{t('console.organization.webhooks.state')}</dt>
            <dd class="webhook-state">
              {webhook.enabled
                ? t('console.organization.webhooks.on')
                : webhook.disabled_at
                  ? t('console.organization.webhooks.off_failing', { moment: momentOf(webhook.disabled_at) })
                  : t('console.organization.webhooks.off')}
            </dd>
          </div>
          <div>
            <dt>{t('console.common.created')}</dt>
            <dd>
              <time dateTime={webhook.created_at}>{dayOf(webhook.created_at)}</time>
            </dd>
          </div>
        </dl>
      </div>
      <div class="row-actions">
        <button type="button" disabled={acting.busy.value || !webhook.enabled} onClick={() => void ping()}>
          {rich('console.organization.webhooks.ping', { url: webhook.url, hidden })}
        </button>
        <ConfirmButton
          label={t('console.organization.webhooks.rotate')}
          labelSuffix={` ${t('console.organization.webhooks.rotate_which', { url: webhook.url })}`}
          disabled={acting.busy.value}
          question={t('console.organization.webhooks.rotate_question', { url: webhook.url, hours: 24 })}
          confirm={t('console.organization.webhooks.rotate_confirm')}
          onConfirm={rotate}
        />
        <button type="button" disabled={acting.busy.value} onClick={() => void setEnabled(!webhook.enabled)}>
          {rich('console.organization.webhooks.turn', {
            enabled: webhook.enabled ? 'yes' : 'no',
            url: webhook.url,
            hidden,
          })}
        </button>
        <ConfirmButton
          label={t('console.organization.webhooks.delete')}
          labelSuffix={` ${webhook.url}`}
          class="danger"
          disabled={acting.busy.value}
          question={t('console.organization.webhooks.delete_question', { url: webhook.url })}
          confirm={t('console.organization.webhooks.delete_confirm')}
          onConfirm={remove}
        />
      </div>
      <p role="status" class="done webhook-row-said">
        {told.value}
      </p>
      <Problem action={acting} />
      {rotated.value && (
        <SecretOnce
          title={t('console.organization.webhooks.rotated', { url: webhook.url })}
          secret={rotated.value}
          hint={t('console.organization.webhooks.rotated_hint', { hours: 24 })}
          onDone={() => (rotated.value = null)}
        />
      )}
      <Deliveries
        list={deliveries.value}
        reading={reading}
        url={webhook.url}
        onRetry={retry}
        onRefresh={() => reads.value++}
        busy={acting.busy.value}
      />
    </li>
  );
}
