import * as v from 'valibot';
import { said } from '../i18n/valibot';

/** An e-mail address as signups, logins, invitations and organization seats take it: trimmed and lower-cased. */
export const EmailInput = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254),
  v.email(said('error.validation.email_address')),
);

/**
 * How a deleted account is named wherever a name is shown (docs/api.md#an-accounts-life): what it
 * wrote stays, with no author (`user_id: null`); its votes and ratings stay counted under this name.
 */
export const DELETED_USER_NAME = 'Deleted user';

export const PlanOutput = v.object({ name: v.string(), workshops_max_attendees: v.number() });
