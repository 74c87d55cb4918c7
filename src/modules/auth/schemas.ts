import * as v from 'valibot';
import { UserOutput } from '../users/schemas';
import { requiredText } from '../../http/validation';
import { EmailInput } from '../../domain/users';

export const SignupInput = v.object({
  email: EmailInput,
  password: v.pipe(v.string(), v.minLength(8, 'Passwords have at least 8 characters.'), v.maxLength(1024)),
  name: requiredText(200),
});

export const LoginInput = v.object({
  email: EmailInput,
  password: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
});

export const ConfirmInput = v.object({ token: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) });

export const SessionOutput = v.object({ token: v.string(), user: UserOutput });
