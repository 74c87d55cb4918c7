import * as v from 'valibot';

/** An e-mail address as signups, logins, invitations and organization seats take it: trimmed and lower-cased. */
export const EmailInput = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254),
  v.email('Expected an e-mail address.'),
);

export const PlanOutput = v.object({ name: v.string(), workshops_max_attendees: v.number() });
