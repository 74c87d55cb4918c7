import type { AppDeps } from '../../deps';
import type { Db, Schema } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { write } from '../../db/write';
import type { ChangeRecorder } from '../../domain/recorder';
import { DEFAULT_PREFS } from '../../domain/permissions';
import { mergePrefs } from '../../domain/prefs';
import { templatesIn } from '../templates/catalog';
import { loadAccess, type LoadedAccess } from '../access/load';
import { seesAuthor, seesCardBy, visibleCardAuthors } from '../access/visibility';
import { assertViewReferences, findWorkshop, insertWorkshop } from './repo';
import { cardsByPosition, criteriaOfWorkshop, insertRowsOf, sectionsOfWorkshop, stepsByPosition } from './copy-repo';
import type { CreateWorkshopInput } from './schemas';
import type { WorkshopOutput } from '../../domain/workshops';
import { toWorkshop, workshopForEvent } from './output';
import { DEFAULT_VIEW, mergeView, remapView } from '../../domain/view';

/** Records `createWorkshop` and answers with the workshop as its creator (a facilitator) sees it. */
export async function announceCreated(
  deps: AppDeps,
  tx: Db,
  changes: ChangeRecorder,
  workshopId: string,
  userId: string,
): Promise<WorkshopOutput> {
  const workshop = await findWorkshop(tx, workshopId);
  changes.record({
    workshopId,
    action: 'createWorkshop',
    userId,
    change: { workshop: await workshopForEvent(tx, deps.config, workshop!) },
  });
  return toWorkshop(tx, deps.config, workshop!, 'all');
}

/**
 * Copies a workshop the caller is a member of: settings (its language included, unless `title` and
 * `language` in the body say otherwise), view, vote limits, steps, criteria, sections and cards
 * (same short ids, new ids). Votes, ratings, items, comments, attachments and
 * members stay behind; the copy is the caller's personal workshop.
 *
 * The caller facilitates the copy, so it holds only what they may read of the source
 * (docs/api.md#private-writing-and-anonymous-authors): cards a private step hides from them stay
 * behind (and ideas whose cluster does), and a card whose author is hidden from them is `hidden`
 * in the copy.
 */
export function copyWorkshop(
  deps: AppDeps,
  user: UserRow,
  sourceId: string,
  { title, language }: Pick<CreateWorkshopInput, 'title' | 'language'>,
): Promise<WorkshopOutput> {
  // The copy is a new workshop, with no row to lock yet: a plain write.
  return write(deps, async (tx, changes) => {
    const access = await loadAccess(tx, sourceId, user);
    const source = access.workshop;
    const ids = new Map<string, string>();
    const copyId = (id: string) => {
      const fresh = newId();
      ids.set(id, fresh);
      return fresh;
    };
    const now = nowIso();
    const sourceSteps = await stepsByPosition(tx, source.id);
    const sourceCriteria = await criteriaOfWorkshop(tx, source.id);
    const sourceSections = await sectionsOfWorkshop(tx, source.id);
    const sourceCards = await readableCards(tx, access);
    for (const row of [...sourceSteps, ...sourceCriteria, ...sourceSections, ...sourceCards]) copyId(row.id);
    const copyOf = (id: string) => ids.get(id) ?? null;
    const copies = { card: copyOf, criterion: copyOf };

    const workshop = await insertWorkshop(tx, {
      owner: { type: 'user', id: user.id },
      creatorId: user.id,
      title: title ?? source.title,
      description: source.description,
      dailyMail: source.dailyMail,
      changeStepNotifications: source.changeStepNotifications,
      forceSync: source.forceSync,
      allowGuests: source.allowGuests,
      language: language ?? source.language,
      view: remapView(source.view, copies),
      extra: {
        votePositive: source.votePositive,
        voteNegative: source.voteNegative,
        voteMaxPositive: source.voteMaxPositive,
        voteMaxNegative: source.voteMaxNegative,
        lastCardNumber: source.lastCardNumber,
        currentStepId: source.currentStepId ? (ids.get(source.currentStepId) ?? null) : null,
      },
    });
    const workshopId = workshop.id;
    const fresh = (id: string) => ids.get(id)!;
    await insertRowsOf(
      tx,
      'steps',
      sourceSteps.map((s) => ({
        ...s,
        id: fresh(s.id),
        workshopId,
        view: remapView(s.view, copies),
        createdAt: now,
        updatedAt: now,
      })),
    );
    await insertRowsOf(
      tx,
      'criteria',
      sourceCriteria.map((c) => ({ ...c, id: fresh(c.id), workshopId, createdAt: now, updatedAt: now })),
    );
    await insertRowsOf(
      tx,
      'sections',
      sourceSections.map((s) => ({ ...s, id: fresh(s.id), workshopId, createdAt: now, updatedAt: now })),
    );
    await insertRowsOf(
      tx,
      'cards',
      sourceCards.map((c) => ({
        ...c,
        id: fresh(c.id),
        workshopId,
        parentId: c.parentId ? (ids.get(c.parentId) ?? null) : null,
        authorVisibility: seesAuthor(access, c.userId, c.authorVisibility) ? c.authorVisibility : 'hidden',
        createdAt: now,
        updatedAt: now,
      })),
    );
    return announceCreated(deps, tx, changes, workshopId, user.id);
  });
}

/**
 * The cards of the workshop the caller may read now, ideas only with their cluster, each stack
 * numbered 0..n-1 again (docs/api.md#cards): the cards left out leave no gaps.
 */
async function readableCards(tx: Db, access: LoadedAccess): Promise<Array<Schema['cards']['$inferSelect']>> {
  const authors = await visibleCardAuthors(tx, access);
  const all = await cardsByPosition(tx, access.workshop.id);
  const seen = all.filter((card) => seesCardBy(authors, card.userId));
  const clusters = new Set(seen.filter((card) => card.type === 'cluster').map((card) => card.id));
  const kept = seen.filter(
    (card) => card.type === 'cluster' || (card.parentId !== null && clusters.has(card.parentId)),
  );
  const stackSizes = new Map<string | null, number>();
  return kept.map((card) => {
    const position = stackSizes.get(card.parentId) ?? 0;
    stackSizes.set(card.parentId, position + 1);
    return position === card.position ? card : { ...card, position };
  });
}

/**
 * Creates a workshop from a catalog template: its steps (prefs and view over the defaults),
 * starter clusters and ideas, criteria and sections, their words in the new workshop's language
 * (docs/i18n.md#template-and-canvas-text). The starter cards are the template's: stored
 * under the caller, their author is named to no participant and on no screen
 * (`hidden_from_participants`).
 */
export async function createFromTemplate(
  deps: AppDeps,
  user: UserRow,
  templateId: string,
  input: CreateWorkshopInput,
): Promise<WorkshopOutput> {
  const language = input.language ?? user.locale;
  const template = templatesIn(language).get(templateId);
  if (!template) throw invalid('template', `Unknown template "${templateId}"; GET /v1/templates lists them.`);
  // The view of a workshop being created cannot name its cards or criteria yet.
  await assertViewReferences(deps.database.db, '', input.view);
  return write(deps, async (tx, changes) => {
    const now = nowIso();
    const criterionIds = new Map(template.criteria.map((c) => [c.title, newId()]));
    const cardCount = template.clusters.reduce((n, cluster) => n + 1 + (cluster.ideas?.length ?? 0), 0);
    const workshop = await insertWorkshop(tx, {
      owner: { type: 'user', id: user.id },
      creatorId: user.id,
      title: input.title ?? template.title,
      description: input.description ?? template.description,
      dailyMail: input.daily_mail,
      changeStepNotifications: input.change_step_notifications,
      forceSync: input.force_sync,
      allowGuests: input.allow_guests,
      language,
      view: mergeView(DEFAULT_VIEW, input.view),
      extra: {
        lastCardNumber: cardCount,
        ...(template.vote_limit && {
          votePositive: template.vote_limit.positive,
          voteNegative: template.vote_limit.negative,
        }),
      },
    });
    const workshopId = workshop.id;
    const cardRows: Array<Schema['cards']['$inferInsert']> = [];
    let number = 0;
    const base = { workshopId, createdAt: now, updatedAt: now };
    template.clusters.forEach((cluster, position) => {
      const clusterId = newId();
      cardRows.push({
        ...base,
        id: clusterId,
        number: ++number,
        type: 'cluster',
        title: cluster.title,
        color: cluster.color ?? null,
        position,
        userId: user.id,
        authorVisibility: 'hidden_from_participants',
      });
      (cluster.ideas ?? []).forEach((idea, ideaPosition) => {
        cardRows.push({
          ...base,
          id: newId(),
          number: ++number,
          type: 'idea',
          title: idea.title,
          content: idea.content ?? '',
          parentId: clusterId,
          position: ideaPosition,
          userId: user.id,
          authorVisibility: 'hidden_from_participants',
        });
      });
    });
    await insertRowsOf(
      tx,
      'steps',
      template.steps.map((step, position) => ({
        ...base,
        id: newId(),
        position,
        name: step.name,
        instructions: step.instructions,
        prefs: mergePrefs(DEFAULT_PREFS, step.prefs),
        view: {
          ...mergeView(DEFAULT_VIEW, step.view),
          sort_criterium_id: step.sort_criterium ? criterionIds.get(step.sort_criterium)! : null,
        },
      })),
    );
    await insertRowsOf(
      tx,
      'criteria',
      template.criteria.map((c, position) => ({
        ...base,
        id: criterionIds.get(c.title)!,
        title: c.title,
        scale: c.scale,
        position,
      })),
    );
    await insertRowsOf(
      tx,
      'sections',
      template.sections.map((s, position) => ({ ...base, id: newId(), title: s.title, position })),
    );
    await insertRowsOf(tx, 'cards', cardRows);
    return announceCreated(deps, tx, changes, workshopId, user.id);
  });
}
