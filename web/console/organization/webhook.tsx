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
      told.value = 'A test ping is on its way: its delivery shows below.';
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
      told.value = enabled
        ? 'The endpoint is on: events are sent to it again.'
        : 'The endpoint is off: nothing is sent.';
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
      told.value = `The ${delivery.event_type} delivery is sent again.`;
      reads.value++;
    });

  const events = webhook.events.includes('*') ? 'every event' : webhook.events.join(', ');
  return (
    <li class="webhook-row" data-webhook={webhook.id}>
      <div class="webhook-text">
        <span class="webhook-url">{webhook.url}</span>
        {webhook.description && <span class="meta webhook-description"> {webhook.description}</span>}
        <dl class="token-facts">
          <div>
            <dt>Events</dt>
            <dd class="webhook-events">{events}</dd>
          </div>
          <div>
            <dt>State</dt>
            <dd class="webhook-state">
              {webhook.enabled
                ? 'On'
                : webhook.disabled_at
                  ? `Off: turned off on ${momentOf(webhook.disabled_at)} after failing for days`
                  : 'Off'}
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <time dateTime={webhook.created_at}>{dayOf(webhook.created_at)}</time>
            </dd>
          </div>
        </dl>
      </div>
      <div class="row-actions">
        <button type="button" disabled={acting.busy.value || !webhook.enabled} onClick={() => void ping()}>
          Send a test ping<span class="visually-hidden"> to {webhook.url}</span>
        </button>
        <ConfirmButton
          label="Rotate the secret"
          labelSuffix={` of ${webhook.url}`}
          disabled={acting.busy.value}
          question={`Make a new signing secret for ${webhook.url}? For 24 hours deliveries carry a signature by each, the new and the previous: give the receiver the new one within that day.`}
          confirm="Rotate secret"
          onConfirm={rotate}
        />
        <button type="button" disabled={acting.busy.value} onClick={() => void setEnabled(!webhook.enabled)}>
          {webhook.enabled ? 'Turn off' : 'Turn on'}
          <span class="visually-hidden"> {webhook.url}</span>
        </button>
        <ConfirmButton
          label="Delete"
          labelSuffix={` ${webhook.url}`}
          class="danger"
          disabled={acting.busy.value}
          question={`Delete the endpoint ${webhook.url}? Nothing more is sent there, and its deliveries go with it.`}
          confirm="Delete endpoint"
          onConfirm={remove}
        />
      </div>
      <p role="status" class="done webhook-row-said">
        {told.value}
      </p>
      <Problem action={acting} />
      {rotated.value && (
        <SecretOnce
          title={`The new signing secret of ${webhook.url}. It is shown this once: copy it now.`}
          secret={rotated.value}
          hint="Deliveries are signed with it from now on, and with the previous secret as well for 24 hours."
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
