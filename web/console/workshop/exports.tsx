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

type ExportType = Export['type'];

/** The formats, in the order offered, with what each is for. */
const FORMATS: ReadonlyArray<{ type: ExportType; name: string; about: string }> = [
  { type: 'pdf', name: 'PDF report', about: 'to hand out: the agenda, the ideas, scores and charts' },
  { type: 'docx', name: 'Word document', about: 'the same report, to edit' },
  { type: 'xlsx', name: 'Excel workbook', about: 'every card, vote, rating and comment, one sheet each' },
  { type: 'csv', name: 'CSV of the cards', about: 'to import into another workshop or a spreadsheet' },
  { type: 'native', name: 'Workshop file', about: 'everything, to start a new workshop from it' },
];

const nameOf = (type: ExportType) => FORMATS.find((format) => format.type === type)?.name ?? type;

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
      <Panel title="Export the workshop">
        <ul class="export-formats">
          {FORMATS.map((format) => (
            <li key={format.type}>
              <button type="button" disabled={start.busy.value} onClick={() => void begin(format.type)}>
                Export as {format.name}
              </button>
              <span class="hint">{format.about}</span>
            </li>
          ))}
        </ul>
        <Problem action={start} />
      </Panel>
      <Panel title="Exports">
        <Problem action={load} />
        <Problem action={remove} />
        {exports.value === null ? (
          <p role="status">Loading…</p>
        ) : exports.value.length === 0 ? (
          <p class="empty">No export yet.</p>
        ) : (
          <ul class="export-list">
            {exports.value.map((each) => (
              <ExportRow key={each.id} item={each} onDelete={() => drop(each)} />
            ))}
          </ul>
        )}
        <p class="hint">Download links work for 7 days without signing in: share them with care.</p>
      </Panel>
    </div>
  );
}

function ExportRow({ item, onDelete }: { item: Export; onDelete: () => unknown }) {
  const name = nameOf(item.type);
  return (
    <li class="export-row" data-export={item.id} data-state={item.state}>
      <div class="export-text">
        <span class="export-name">{name}</span>
        <span class="meta">
          asked <time dateTime={item.created_at}>{momentOf(item.created_at)}</time>
        </span>
        <span class="export-state" role="status">
          {item.state === 'pending' ? (
            <>
              <progress aria-label={`${name} being made`} /> Being made…
            </>
          ) : item.state === 'failed' ? (
            <span class="problem">Failed: {item.message ?? 'the file could not be made.'}</span>
          ) : (
            <span class="done">Ready</span>
          )}
        </span>
      </div>
      <div class="row-actions">
        {item.state === 'success' && item.url && (
          <a class="export-download" href={item.url} download>
            Download<span class="visually-hidden"> the {name}</span>
          </a>
        )}
        <ConfirmButton
          label={`Delete ${name}`}
          question={`Delete this ${name} and its file?`}
          confirm="Delete the export"
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
