import * as v from 'valibot';
import { UserOutput } from '../users/schemas';
import { requiredText } from '../../http/validation';
import { EmailInput } from '../../domain/users';
import { LanguageInput, TimeZoneInput } from '../../domain/languages';
import { said } from '../../i18n/valibot';

/** A password being set: at signup, a reset or a change. */
const NewPassword = v.pipe(
  v.string(),
  v.minLength(8, said('error.validation.password_short', { min: 8 })),
  v.maxLength(1024),
);

export const SignupInput = v.object({
  email: EmailInput,
  password: NewPassword,
  name: requiredText(200),
  /** Else the request's `Accept-Language` among the service's languages, else `en` (a guest keeps theirs). */
  locale: v.optional(LanguageInput),
  /** Else `UTC` (a guest keeps theirs). */
  time_zone: v.optional(TimeZoneInput),
});
export type SignupInput = v.InferOutput<typeof SignupInput>;

export const LoginInput = v.object({
  email: EmailInput,
  password: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
});

export const ConfirmInput = v.object({ token: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) });

export const SessionOutput = v.object({ token: v.string(), user: UserOutput });

export const PasswordResetInput = v.object({ email: EmailInput });

export const PasswordResetConfirmInput = v.object({
  token: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  password: NewPassword,
});

export const PasswordChangeInput = v.object({
  current_password: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
  password: NewPassword,
});

export const AddressChangeInput = v.object({
  email: EmailInput,
  password: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
});

/** One place the person is signed in (docs/api.md#an-accounts-life). */
export const SessionListItem = v.object({
  id: v.string(),
  /** How it was opened: with a password, or through the single sign-on provider. */
  method: v.picklist(['password', 'oidc']),
  created_at: v.string(),
  last_used_at: v.string(),
  /** The `User-Agent` of the request that opened it; null when it sent none. */
  user_agent: v.nullable(v.string()),
  /** The session this request was sent with. */
  current: v.boolean(),
});
export const SessionListOutput = v.array(SessionListItem);
export type SessionListOutput = v.InferOutput<typeof SessionListOutput>;
