import * as v from 'valibot';
import { idString, optionalText, requiredText } from '../../http/validation';
import {
  VoteBudgetInput,
  VotesPerCardInput,
  WORKSHOP_DESCRIPTION_MAX,
  WORKSHOP_TITLE_MAX,
  WorkshopOutput,
} from '../../domain/workshops';
import { GUEST_NAME_MAX, UserOutput } from '../users/schemas';
import { ViewInput } from '../../domain/view';
import { LanguageInput, TimeZoneInput } from '../../domain/languages';
import { ACCESS_CODE_DIGITS, typedAccessCode } from '../../domain/access-codes';
import { said } from '../../i18n/valibot';

/** The settings a workshop is created with and that an update may change. */
const settingsEntries = {
  title: v.optional(requiredText(WORKSHOP_TITLE_MAX)),
  description: v.optional(optionalText(WORKSHOP_DESCRIPTION_MAX)),
  daily_mail: v.optional(v.boolean()),
  change_step_notifications: v.optional(v.boolean()),
  force_sync: v.optional(v.boolean()),
  allow_guests: v.optional(v.boolean()),
  /** Its screen's, exports' and mails' language; at creation, the creator's locale when left out (a copy: the source's). */
  language: v.optional(LanguageInput),
  view: v.optional(ViewInput),
};

export const CustomWorkshopInput = v.object({ ...settingsEntries, title: requiredText(WORKSHOP_TITLE_MAX) });
export type CustomWorkshopInput = v.InferOutput<typeof CustomWorkshopInput>;

/**
 * One body for the four creation modes: `workshop_id` copies, `template` instantiates a template,
 * `url` would import a native file, and otherwise the settings make a custom workshop.
 */
export const CreateWorkshopInput = v.object({
  ...settingsEntries,
  workshop_id: v.optional(idString),
  template: v.optional(idString),
  url: v.optional(v.pipe(v.string(), v.maxLength(2048))),
});
export type CreateWorkshopInput = v.InferOutput<typeof CreateWorkshopInput>;

export const UpdateWorkshopInput = v.object({
  state: v.optional(v.picklist(['running', 'archived'])),
  vote_limit: v.optional(
    v.object({
      positive: v.optional(VoteBudgetInput),
      negative: v.optional(VoteBudgetInput),
      max_positive: v.optional(VotesPerCardInput),
      max_negative: v.optional(VotesPerCardInput),
    }),
  ),
  ...settingsEntries,
  current_step_id: v.optional(v.nullable(idString)),
});
export type UpdateWorkshopInput = v.InferOutput<typeof UpdateWorkshopInput>;

const isoTimestamp = v.pipe(
  v.string(),
  v.check((s) => !Number.isNaN(Date.parse(s)), said('error.validation.iso_timestamp')),
  v.transform((s) => new Date(s).toISOString()),
);

export const ListWorkshopsQuery = v.object({
  owner: v.optional(idString),
  role: v.optional(v.picklist(['facilitator', 'attendee'])),
  since: v.optional(isoTimestamp),
  until: v.optional(isoTimestamp),
  state: v.optional(v.picklist(['running', 'archived'])),
});
export type ListWorkshopsQuery = v.InferOutput<typeof ListWorkshopsQuery>;
/** An organization's workshops take the same filters; the owner is the organization. */
export const OrganizationWorkshopsQuery = v.omit(ListWorkshopsQuery, ['owner']);
export type OrganizationWorkshopsQuery = v.InferOutput<typeof OrganizationWorkshopsQuery>;

/**
 * How a join names its workshop: the access code people type, or the key of the join link
 * (`join-key.ts`), exactly one of them. A string that is no key is a wrong key (404), as a wrong
 * code is.
 */
const JOIN_BY = {
  access_code: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(64),
      v.transform(typedAccessCode),
      v.regex(
        new RegExp(`^[0-9]{${ACCESS_CODE_DIGITS}}$`),
        said('error.validation.access_code_digits', { digits: ACCESS_CODE_DIGITS }),
      ),
    ),
  ),
  join_key: v.optional(v.pipe(v.string(), v.minLength(1, said('error.validation.join_key_empty')), v.maxLength(256))),
};
export type JoinBy = { access_code?: string; join_key?: string };
const exactlyOneWayIn = <T extends JoinBy>() =>
  v.check<T, v.ErrorMessage<v.CheckIssue<T>>>(
    (input) => (input.access_code === undefined) !== (input.join_key === undefined),
    said('error.validation.code_or_key'),
  );

export const JoinInput = v.pipe(v.object(JOIN_BY), exactlyOneWayIn());

/**
 * A guest joins (docs/api.md#guests) with the code (or the link's key) and a name, 1..60 characters
 * after trimming; the participant page may say the language chosen and the browser's time zone.
 */
export const GuestJoinInput = v.pipe(
  v.object({
    ...JOIN_BY,
    name: requiredText(GUEST_NAME_MAX),
    locale: v.optional(LanguageInput),
    time_zone: v.optional(TimeZoneInput),
  }),
  exactlyOneWayIn(),
);
export type GuestJoinInput = v.InferOutput<typeof GuestJoinInput>;

/** The code people type, and the link (`${PUBLIC_URL}/join#key=…`) that joins without typing it. */
export const AccessCodeOutput = v.object({ access_code: v.string(), join_url: v.string() });
export type AccessCodeOutput = v.InferOutput<typeof AccessCodeOutput>;

export const GuestSessionOutput = v.object({ token: v.string(), user: UserOutput, workshop: WorkshopOutput });
export type GuestSessionOutput = v.InferOutput<typeof GuestSessionOutput>;

export const UpdateUserRoleInput = v.object({ role: v.picklist(['facilitator', 'participant']) });

export const MessageInput = v.object({
  content: requiredText(10_000),
  include_me: v.optional(v.boolean(), false),
});
export type MessageInput = v.InferOutput<typeof MessageInput>;

export const RecipientsOutput = v.object({ recipients: v.number() });

/** `123-456-789`: how access codes are shown; they are stored as nine bare digits. */
export function formatAccessCode(code: string): string {
  return `${code.slice(0, 3)}-${code.slice(3, 6)}-${code.slice(6, 9)}`;
}
