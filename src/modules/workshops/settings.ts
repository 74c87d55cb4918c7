import type { WorkshopRow } from '../access/load';
import { DEFAULT_VIEW, mergeView } from '../../domain/view';
import type { UpdateWorkshopInput } from './schemas';

/*
 * What PUT /v1/workshops/:id may change of a workshop's settings: the row as an update leaves it,
 * and the settings named as in the output, so that the logged `changes` read like the resource.
 */

/** The settings an update can change, named as in the output, so `changes` reads like the resource. */
export function settingsOf(row: WorkshopRow) {
  return {
    title: row.title,
    description: row.description,
    state: row.state,
    vote_limit: {
      positive: row.votePositive,
      negative: row.voteNegative,
      max_positive: row.voteMaxPositive,
      max_negative: row.voteMaxNegative,
    },
    daily_mail: row.dailyMail,
    change_step_notifications: row.changeStepNotifications,
    force_sync: row.forceSync,
    allow_guests: row.allowGuests,
    language: row.language,
    view: mergeView(DEFAULT_VIEW, row.view),
  };
}
export const SETTINGS = [
  'title',
  'description',
  'state',
  'vote_limit',
  'daily_mail',
  'change_step_notifications',
  'force_sync',
  'allow_guests',
  'language',
  'view',
] as const;

/** The row as `input` would leave it (members left out keep their value). */
export function applySettings(row: WorkshopRow, input: UpdateWorkshopInput): WorkshopRow {
  const limit = input.vote_limit ?? {};
  return {
    ...row,
    title: input.title ?? row.title,
    description: input.description ?? row.description,
    state: input.state ?? row.state,
    votePositive: limit.positive ?? row.votePositive,
    voteNegative: limit.negative ?? row.voteNegative,
    voteMaxPositive: limit.max_positive ?? row.voteMaxPositive,
    voteMaxNegative: limit.max_negative ?? row.voteMaxNegative,
    dailyMail: input.daily_mail ?? row.dailyMail,
    changeStepNotifications: input.change_step_notifications ?? row.changeStepNotifications,
    forceSync: input.force_sync ?? row.forceSync,
    allowGuests: input.allow_guests ?? row.allowGuests,
    language: input.language ?? row.language,
    view: mergeView(mergeView(DEFAULT_VIEW, row.view), input.view),
  };
}
