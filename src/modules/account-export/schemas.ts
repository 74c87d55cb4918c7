import * as v from 'valibot';
import { API_SCOPES } from '../../domain/api-scopes';
import { AuthorVisibilityOutput } from '../../domain/prefs';
import { SessionListItem } from '../auth/schemas';
import { NotificationOutput } from '../notifications/schemas';
import { UserOutput } from '../users/schemas';

/*
 * The two JSON files of a person's data export (docs/api.md#your-data-export), each described
 * member by member there. Times are ISO 8601 in UTC, as everywhere in the API.
 */

export const ACCOUNT_FILE = 'account.json';
export const CONTRIBUTIONS_FILE = 'contributions.json';
/** The folder of the personal workshops' native files. */
export const WORKSHOPS_FOLDER = 'workshops';

const organizationRole = v.picklist(['facilitator', 'admin']);
const workshopRole = v.picklist(['facilitator', 'participant']);

export const AccountFile = v.strictObject({
  format: v.literal('account-export'),
  version: v.literal(1),
  exported_at: v.string(),
  profile: UserOutput,
  sign_in: v.strictObject({
    /** Whether the account has a password (never the password or its hash). */
    password: v.boolean(),
    /** The OpenID provider identities the account signs in with. */
    identities: v.array(
      v.strictObject({
        issuer: v.string(),
        subject: v.string(),
        email: v.nullable(v.string()),
        created_at: v.string(),
      }),
    ),
  }),
  organizations: v.array(
    v.strictObject({ id: v.string(), name: v.string(), role: organizationRole, joined_at: v.string() }),
  ),
  /** One native file each in the archive, at `file`. */
  personal_workshops: v.array(
    v.strictObject({ id: v.string(), title: v.string(), created_at: v.string(), file: v.string() }),
  ),
  workshop_memberships: v.array(
    v.strictObject({
      workshop_id: v.string(),
      title: v.string(),
      /** Null for a personal workshop (the user's own or someone else's). */
      organization_id: v.nullable(v.string()),
      personal: v.boolean(),
      role: workshopRole,
      joined_at: v.string(),
    }),
  ),
  sessions: v.array(SessionListItem),
  api_tokens: v.array(
    v.strictObject({
      id: v.string(),
      name: v.string(),
      /** Null for a personal token; else the organization the user made it for. */
      organization_id: v.nullable(v.string()),
      scopes: v.array(v.picklist(API_SCOPES)),
      /** The secret's first characters, as the token lists show them; never the secret. */
      prefix: v.string(),
      created_at: v.string(),
      expires_at: v.nullable(v.string()),
      last_used_at: v.nullable(v.string()),
      revoked_at: v.nullable(v.string()),
    }),
  ),
  notifications: v.array(NotificationOutput),
});
export type AccountFile = v.InferOutput<typeof AccountFile>;

const authored = { author_visibility: AuthorVisibilityOutput, created_at: v.string() };

export const ContributedWorkshop = v.strictObject({
  workshop: v.strictObject({
    id: v.string(),
    title: v.string(),
    created_at: v.string(),
    /** The organization owning it; null for another person's workshop. */
    organization: v.nullable(v.strictObject({ id: v.string(), name: v.string() })),
  }),
  /** The user's role there now; null once they are no longer a member. */
  role: v.nullable(workshopRole),
  cards: v.array(
    v.strictObject({
      id: v.string(),
      short_id: v.number(),
      type: v.picklist(['idea', 'cluster']),
      title: v.string(),
      content: v.string(),
      color: v.nullable(v.string()),
      aside: v.boolean(),
      parent_id: v.nullable(v.string()),
      ...authored,
      updated_at: v.string(),
    }),
  ),
  comments: v.array(v.strictObject({ id: v.string(), card_id: v.string(), content: v.string(), ...authored })),
  votes: v.array(v.strictObject({ id: v.string(), card_id: v.string(), value: v.number(), created_at: v.string() })),
  ratings: v.array(
    v.strictObject({
      id: v.string(),
      card_id: v.string(),
      criterium_id: v.string(),
      criterion: v.string(),
      value: v.number(),
      created_at: v.string(),
    }),
  ),
  items: v.array(
    v.strictObject({
      id: v.string(),
      card_id: v.string(),
      section_id: v.string(),
      section: v.string(),
      content: v.string(),
      ...authored,
    }),
  ),
  attachments: v.array(
    v.strictObject({
      id: v.string(),
      card_id: v.string(),
      name: v.string(),
      mimetype: v.string(),
      size: v.number(),
      ...authored,
    }),
  ),
});
export type ContributedWorkshop = v.InferOutput<typeof ContributedWorkshop>;

export const ContributionsFile = v.strictObject({
  format: v.literal('account-contributions'),
  version: v.literal(1),
  exported_at: v.string(),
  user_id: v.string(),
  workshops: v.array(ContributedWorkshop),
  /**
   * Organizations requiring single sign-on whose workshops this session, opened with a password,
   * may not read: what the user wrote there is left out until they export signed in through the provider.
   */
  withheld_organizations: v.array(v.strictObject({ id: v.string(), name: v.string() })),
});
export type ContributionsFile = v.InferOutput<typeof ContributionsFile>;
