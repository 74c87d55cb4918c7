import type { NativeDocument } from './native-schema';
import { SCALES } from '../../domain/criteria';

/** The first reference that points at nothing (or at the wrong kind of thing), described; null when all hold. */
export function brokenReference(doc: NativeDocument): string | null {
  const duplicate = (what: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) return `two ${what} have the id "${id}".`;
      seen.add(id);
    }
    return null;
  };
  const duplicates =
    duplicate(
      'steps',
      doc.steps.map((s) => s.id),
    ) ??
    duplicate(
      'criteria',
      doc.criteria.map((c) => c.id),
    ) ??
    duplicate(
      'sections',
      doc.sections.map((s) => s.id),
    ) ??
    duplicate(
      'cards',
      doc.cards.map((c) => c.id),
    ) ??
    duplicate(
      'cards',
      doc.cards.map((c) => String(c.short_id)),
    ) ??
    duplicate('zones', doc.canvas?.zones.map((z) => z.id) ?? []);
  if (duplicates) return duplicates;

  const cardTypes = new Map(doc.cards.map((c) => [c.id, c.type]));
  const criterionScales = new Map(doc.criteria.map((c) => [c.id, c.scale]));
  const sectionIds = new Set(doc.sections.map((s) => s.id));
  const stepIds = new Set(doc.steps.map((s) => s.id));
  for (const [index, card] of doc.cards.entries()) {
    if (card.type === 'cluster' && card.parent_id !== null) return `cards[${index}] is a cluster with a parent.`;
    if (card.type === 'idea' && (card.parent_id === null || cardTypes.get(card.parent_id) !== 'cluster')) {
      return `cards[${index}].parent_id does not name a cluster of the file.`;
    }
    if (card.type === 'idea' && card.color !== null) return `cards[${index}] is an idea with a color.`;
  }
  const onCard = (what: string, list: ReadonlyArray<{ card_id: string }>) => {
    const index = list.findIndex((row) => !cardTypes.has(row.card_id));
    return index < 0 ? null : `${what}[${index}].card_id does not name a card of the file.`;
  };
  const cardless =
    onCard('votes', doc.votes) ??
    onCard('ratings', doc.ratings) ??
    onCard('items', doc.items) ??
    onCard('comments', doc.comments);
  if (cardless) return cardless;
  for (const [index, rating] of doc.ratings.entries()) {
    const scale = criterionScales.get(rating.criterium_id);
    if (scale === undefined) return `ratings[${index}].criterium_id does not name a criterion of the file.`;
    if (!SCALES[scale]?.includes(rating.value)) return `ratings[${index}].value is not on its criterion's scale.`;
  }
  const sectionless = doc.items.findIndex((item) => !sectionIds.has(item.section_id));
  if (sectionless >= 0) return `items[${sectionless}].section_id does not name a section of the file.`;
  if (doc.workshop.current_step_id !== null && !stepIds.has(doc.workshop.current_step_id))
    return 'workshop.current_step_id does not name a step of the file.';
  for (const [index, zone] of (doc.canvas?.zones ?? []).entries()) {
    if (zone.cluster_id !== null && cardTypes.get(zone.cluster_id) !== 'cluster')
      return `canvas.zones[${index}].cluster_id does not name a cluster of the file.`;
  }
  const viewProblem = (where: string, view: NativeDocument['workshop']['view']) => {
    if (view.card && !cardTypes.has(view.card)) return `${where}.card does not name a card of the file.`;
    if (view.sort_criterium_id && !criterionScales.has(view.sort_criterium_id))
      return `${where}.sort_criterium_id does not name a criterion of the file.`;
    if (view.sort === 'criterium_average' && !view.sort_criterium_id)
      return `${where} sorts by criterium_average without a sort_criterium_id.`;
    const stray = (view.show_cluster_ids ?? []).find((id) => cardTypes.get(id) !== 'cluster');
    if (stray !== undefined) return `${where}.show_cluster_ids names "${stray}", which is not a cluster of the file.`;
    return null;
  };
  return (
    viewProblem('workshop.view', doc.workshop.view) ??
    doc.steps.map((step, i) => viewProblem(`steps[${i}].view`, step.view)).find((p) => p !== null) ??
    null
  );
}
