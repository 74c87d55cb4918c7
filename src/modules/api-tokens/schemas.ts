import * as v from 'valibot';
import { API_SCOPES } from '../../domain/api-scopes';
import { DeletedUserOutput } from '../users/schemas';
import { said } from '../../i18n/valibot';

export const CreateApiTokenInput = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  scopes: v.pipe(v.array(v.picklist(API_SCOPES)), v.minLength(1), v.maxLength(API_SCOPES.length)),
  expires_at: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.check((s) => !Number.isNaN(Date.parse(s)), said('error.validation.iso_timestamp')),
        v.check((s) => Date.parse(s) > Date.now(), said('error.validation.expiry_past')),
        v.transform((s) => new Date(s).toISOString()),
      ),
    ),
  ),
});
export type CreateApiTokenInput = v.InferOutput<typeof CreateApiTokenInput>;

/** A token as lists show it: never its secret, which only the answer that made it holds. */
export const ApiTokenOutput = v.object({
  id: v.string(),
  name: v.string(),
  scopes: v.array(v.picklist(API_SCOPES)),
  /** The secret's first characters, to tell tokens apart. */
  prefix: v.string(),
  /**
   * Who made it. An organization's token keeps working after its maker leaves the organization
   * (it belongs to the organization); this still names them, or a deleted user once their
   * account is deleted (docs/api.md#an-accounts-life).
   */
  created_by: v.union([v.object({ id: v.string(), name: v.string() }), DeletedUserOutput]),
  created_at: v.string(),
  expires_at: v.nullable(v.string()),
  last_used_at: v.nullable(v.string()),
});
export type ApiTokenOutput = v.InferOutput<typeof ApiTokenOutput>;

export const CreatedApiTokenOutput = v.object({
  ...ApiTokenOutput.entries,
  /** The secret (`wsk_…`): shown in this answer only, stored as a hash. */
  token: v.string(),
});
export type CreatedApiTokenOutput = v.InferOutput<typeof CreatedApiTokenOutput>;
