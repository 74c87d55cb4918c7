/*
 * The Exports tab (docs/api.md#exports): an export of each format started at a click, made by the
 * server in the background; the list follows each one live (`export:updated`, `export:deleted`,
 * sent to facilitators only) from "being made" to a download link, which works without a token,
 * or to the reason it failed. Exports are kept 7 days; each can be deleted sooner.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { Export } from 'workshop-sdk';
import { api } from '../api';
import { ConfirmButton, Panel, Problem, useAction } from '../forms';
import type { WorkshopScope } from './context';
import { momentOf } from '../dates';
import { rich, t } from '../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

type ExportType = Export['type'];

/** The formats, in the order offered. Each sentence naming one is a select on it: the words around a name agree with it. */
const FORMATS: readonly ExportType[] = ['pdf', 'docx', 'xlsx', 'csv', 'native'];

export function Exports({ scope }: { scope: WorkshopScope }) {
  const exports = useSignal<Export[] | null>(null);
  const load = useAction();
  const start = useAction();
  const remove = useAction();
  useEffect(() => {
    const inWorkshop = { params: { path: { workshop_id: scope.id } } };
    void load.run(async () => {
      const listed = await api.get('/v1/workshops/{workshop_id}/exports', inWorkshop);
      // Events heard while the list was read are newer than it.
      exports.value = merge(listed, exports.value ?? []);
    });
    const stops = [
      scope.live.on('export:updated', ({ export: changed }) => (exports.value = merge(exports.value ?? [], [changed]))),
      scope.live.on('export:deleted', ({ export: gone }) => {
        exports.value = (exports.value ?? []).filter((each) => each.id !== gone.id);
      }),
    ];
    return () => stops.forEach((stop) => stop());
  }, [scope]);

  const begin = (type: ExportType) =>
    start.run(async () => {
      const made = await api.post('/v1/workshops/{workshop_id}/exports', {
        params: { path: { workshop_id: scope.id } },
        body: { type },
      });
      exports.value = merge(exports.value ?? [], [made]);
    });
  const drop = (gone: Export) =>
    remove.run(async () => {
      await api.delete('/v1/workshops/{workshop_id}/exports/{id}', {
        params: { path: { workshop_id: scope.id, id: gone.id } },
      });
      exports.value = (exports.value ?? []).filter((each) => each.id !== gone.id);
    });

  return (
    <div class="exports">
      <Panel title={t('console.exports.start_title')}>
        <ul class="export-formats">
          {FORMATS.map((type) => (
            <li key={type}>
              <button type="button" disabled={start.busy.value} onClick={() => void begin(type)}>
                {t('console.exports.export_as', { type })}
              </button>
              <span class="hint">{t('console.exports.about', { type })}</span>
            </li>
          ))}
        </ul>
        <Problem action={start} />
      </Panel>
      <Panel title={t('console.exports.title')}>
        <Problem action={load} />
        <Problem action={remove} />
        {exports.value === null ? (
          <p role="status">{t('console.loading')}</p>
        ) : exports.value.length === 0 ? (
          <p class="empty">{t('console.exports.none')}</p>
        ) : (
          <ul class="export-list">
            {exports.value.map((each) => (
              <ExportRow key={each.id} item={each} onDelete={() => drop(each)} />
            ))}
          </ul>
        )}
        <p class="hint">{t('console.exports.links_hint', { days: 7 })}</p>
      </Panel>
    </div>
  );
}

function ExportRow({ item, onDelete }: { item: Export; onDelete: () => unknown }) {
  const type = item.type;
  return (
    <li class="export-row" data-export={item.id} data-state={item.state}>
      <div class="export-text">
        <span class="export-name">{t('console.exports.format', { type })}</span>
        <span class="meta">
          {rich('console.exports.asked', {
            moment: momentOf(item.created_at),
            time: (words) => <time dateTime={item.created_at}>{words}</time>,
          })}
        </span>
        <span class="export-state" role="status">
          {item.state === 'pending' ? (
            <>
              <progress aria-label={t('console.exports.being_made_label', { type })} />{' '}
              {t('console.exports.being_made')}
            </>
          ) : item.state === 'failed' ? (
            <span class="problem">
              {t('console.exports.failed', { known: item.message ? 'yes' : 'no', message: item.message ?? '' })}
            </span>
          ) : (
            <span class="done">{t('console.exports.ready')}</span>
          )}
        </span>
      </div>
      <div class="row-actions">
        {item.state === 'success' && item.url && (
          <a class="export-download" href={item.url} download>
            {rich('console.exports.download', { type, hidden })}
          </a>
        )}
        <ConfirmButton
          label={t('console.exports.delete', { type })}
          question={t('console.exports.delete_question', { type })}
          confirm={t('console.exports.delete_confirm')}
          onConfirm={onDelete}
        />
      </div>
    </li>
  );
}

/**
 * `list` with each of `changes` put in its place (or added), newest first as the API lists them.
 * An export only moves on from `pending`, so a pending reading never replaces a finished one (a
 * list read before an event, answered after it).
 */
function merge(list: Export[], changes: Export[]): Export[] {
  const byId = new Map(list.map((each) => [each.id, each]));
  for (const changed of changes) {
    const known = byId.get(changed.id);
    if (!(known && known.state !== 'pending' && changed.state === 'pending')) byId.set(changed.id, changed);
  }
  return [...byId.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}
