import { expect } from 'vitest';
import type { AttachmentOutput } from '../../src/domain/attachments';
import type { CanvasOutput } from '../../src/domain/canvas';
import type { CommentOutput } from '../../src/domain/comments';
import type { CriterionOutput } from '../../src/domain/criteria';
import type { ItemOutput } from '../../src/domain/items';
import type { ExportOutput } from '../../src/domain/events';
import type { InvitationOutput } from '../../src/domain/invitations';
import type { OrganizationMemberOutput } from '../../src/modules/organizations/schemas';
import type { OrganizationOutput } from '../../src/domain/organizations';
import type { RatingOutput } from '../../src/domain/ratings';
import type { SectionOutput } from '../../src/domain/sections';
import type { StepOutput } from '../../src/domain/steps';
import type { IllustrationOutput } from '../../src/domain/steps';
import type { VoteOutput } from '../../src/domain/votes';
import type { UserRoleOutput } from '../../src/domain/workshops';
import type { GuestSessionOutput } from '../../src/modules/workshops/schemas';
import {
  multipart,
  pngImage,
  seedCard,
  seedFile,
  seedNotification,
  seedWorkshopWith,
  type TestUser,
} from './factories';
import type { OpenApiDocument } from './openapi';
import { startTestServer, type ApiResponse, type RequestOptions, type TestServer } from './server';

/*
 * Every operation the service documents, as the suites that call all of them see it (in the
 * spirit of unkey's `runCommonRouteTests`): learned from the running service's own OpenAPI
 * document, each classified by who may call it with a body that passes validation, and a scene
 * of one of everything whose ids fill the paths. A new route fails the classification test of
 * `test/security.test.ts` until it is added to ACCESS.
 */

/** One documented operation. */
export interface Operation {
  method: string;
  path: string;
  op: any;
  key: string;
}

/**
 * The documented operations, read from a server started for that alone: for files whose own
 * server starts in a hook, after vitest has collected the tests these operations make.
 */
export async function documentedOperationsAtCollection(): Promise<Operation[]> {
  const server = await startTestServer();
  try {
    return await documentedOperations(server);
  } finally {
    await server.close();
  }
}

/** The operations of the server's OpenAPI document, deletes last, so that a wrongly allowed one does not take the scene from the cases after it. */
export async function documentedOperations(t: Pick<TestServer, 'request'>): Promise<Operation[]> {
  const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        op,
        key: `${method.toUpperCase()} ${path}`,
      })),
    )
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/**
 * How an operation is guarded:
 * - `public`: no token needed (signup, login, mail confirmation, the OpenID sign-in, signed file links,
 *   what an invitation or a join link is for);
 * - `user`: any signed-in user, about nothing another user owns (catalogs, uploads, creating, joining);
 * - `owner`: the caller's own resource by id (a notification): anyone else gets 404;
 * - `organization`: members of the organization: anyone else gets 404;
 * - `member`: members of the workshop; participants as the current step's prefs allow;
 * - `facilitator`: facilitators of the workshop only (docs/api.md#who-may-do-what).
 */
export type Access = 'public' | 'user' | 'owner' | 'organization' | 'member' | 'facilitator';

/** The seeded resources whose ids fill path parameters and bodies. */
export interface Scene {
  workshop: string;
  cluster: string;
  card: string;
  vote: string;
  rating: string;
  criterion: string;
  item: string;
  section: string;
  comment: string;
  attachment: string;
  step: string;
  userRole: string;
  zone: string;
  organization: string;
  orgMember: string;
  notification: string;
  invitation: string;
  export: string;
  file: { key: string; container: string };
}

export type Body = (s: Scene) => Pick<RequestOptions, 'body' | 'rawBody'>;
const json =
  (body: (s: Scene) => unknown): Body =>
  (s) => ({ body: body(s) });
const blob = (file: Scene['file']) => ({ key: file.key, container: file.container });
const image = await pngImage(4, 4);
const png = () => ({ rawBody: multipart('file', image, { name: 'a.png', type: 'image/png' }) });

/**
 * Every documented operation, with its guard and a body that passes validation: validation runs
 * before the permission check (the routes' `jsonBody` middleware comes first), so an invalid body
 * would answer 400 and hide what this suite looks at.
 */
export const ACCESS: Record<string, [Access, Body?]> = {
  'GET /files/{container}/{key}': ['public'],
  'POST /v1/auth/signup': ['public'],
  'POST /v1/auth/login': ['public'],
  'POST /v1/auth/confirm': ['public'],
  'POST /v1/auth/password_reset': ['public', json(() => ({ email: 'nobody-here@example.test' }))],
  'POST /v1/auth/password_reset/confirm': ['public', json(() => ({ token: 'no such link', password: 'long enough' }))],
  'GET /v1/auth/oidc': ['public'],
  'GET /v1/auth/oidc/start': ['public'],
  'GET /v1/auth/oidc/callback': ['public'],
  'POST /v1/auth/logout': ['user'],

  'GET /v1/user/me': ['user'],
  'PUT /v1/user/me': ['user', json(() => ({ name: 'Renamed' }))],
  'PUT /v1/user/me/avatar': ['user', png],
  'POST /v1/user/me/confirmation': ['user'],
  // A wrong password, so a signed-in caller changes nothing the scene's other cases need.
  'PUT /v1/user/me/password': ['user', json(() => ({ current_password: 'not it', password: 'long enough' }))],
  'PUT /v1/user/me/email': ['user', json(() => ({ email: 'moved@example.test', password: 'not it' }))],
  'GET /v1/user/me/sessions': ['user'],
  'GET /v1/user/me/export': ['user'],
  'DELETE /v1/user/me/sessions/{id}': ['user'],
  'DELETE /v1/user/me/sessions': ['user'],
  'GET /v1/user/me/deletion': ['user'],
  // A wrong password: the scene's signed-in callers stay.
  'DELETE /v1/user/me': ['user', json(() => ({ password: 'not it' }))],
  'GET /v1/user/me/notifications': ['user'],
  'PUT /v1/user/me/notifications/read': ['user', json(() => ({}))],
  'PUT /v1/user/me/notifications/{id}': ['owner', json(() => ({ read: true }))],
  'GET /v1/user/me/organizations': ['user'],
  'GET /v1/user/me/workshops': ['user'],

  'POST /v1/organizations': ['user', json(() => ({ name: 'Org' }))],
  'GET /v1/organizations/{id}': ['organization'],
  'PUT /v1/organizations/{id}': ['organization', json(() => ({ name: 'Renamed' }))],
  'PUT /v1/organizations/{id}/avatar': ['organization', png],
  'GET /v1/organizations/{id}/members': ['organization'],
  'POST /v1/organizations/{id}/members': [
    'organization',
    json(() => ({ email: 'new@example.test', role: 'facilitator' })),
  ],
  'PUT /v1/organizations/{id}/members/{member_id}': ['organization', json(() => ({ role: 'facilitator' }))],
  'DELETE /v1/organizations/{id}/members/{member_id}': ['organization'],
  'GET /v1/organizations/{organization_id}/workshops': ['organization'],
  'POST /v1/organizations/{id}/api_tokens': ['organization', json(() => ({ name: 'CI', scopes: ['cards:read'] }))],
  'GET /v1/organizations/{id}/api_tokens': ['organization'],
  'DELETE /v1/organizations/{id}/api_tokens/{token_id}': ['organization'],
  'POST /v1/organizations/{id}/webhooks': [
    'organization',
    json(() => ({ url: 'https://hooks.example.com/in', events: ['*'] })),
  ],
  'GET /v1/organizations/{id}/webhooks': ['organization'],
  'GET /v1/organizations/{id}/webhooks/{webhook_id}': ['organization'],
  'PUT /v1/organizations/{id}/webhooks/{webhook_id}': ['organization', json(() => ({ description: 'x' }))],
  'DELETE /v1/organizations/{id}/webhooks/{webhook_id}': ['organization'],
  'POST /v1/organizations/{id}/webhooks/{webhook_id}/rotate_secret': ['organization'],
  'POST /v1/organizations/{id}/webhooks/{webhook_id}/test': ['organization'],
  'GET /v1/organizations/{id}/webhooks/{webhook_id}/deliveries': ['organization'],
  'POST /v1/organizations/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': ['organization'],
  'POST /v1/user/me/api_tokens': ['user', json(() => ({ name: 'CI', scopes: ['cards:read'] }))],
  'GET /v1/user/me/api_tokens': ['user'],
  'DELETE /v1/user/me/api_tokens/{token_id}': ['user'],
  'POST /v1/organizations/{organization_id}/workshops': ['organization', json(() => ({ title: 'Org workshop' }))],

  'GET /v1/canvas': ['user'],
  'GET /v1/canvas/{id}': ['user'],
  'GET /v1/templates': ['user'],
  'GET /v1/templates/{id}': ['user'],
  'POST /v1/uploads': ['user', png],
  'POST /v1/workshops': ['user', json(() => ({ title: 'Mine' }))],
  'POST /v1/workshops/join': ['user', json(() => ({ access_code: '000-000-000' }))],
  'POST /v1/workshops/join/guest': ['public', json(() => ({ access_code: '000-000-000', name: 'Guest' }))],
  'GET /v1/workshops/join/{join_key}': ['public'],

  'GET /v1/workshops/{id}': ['member'],
  'PUT /v1/workshops/{id}': ['facilitator', json(() => ({ title: 'Taken over' }))],
  'DELETE /v1/workshops/{id}': ['facilitator'],
  'GET /v1/workshops/{workshop_id}/access_code': ['facilitator'],
  'GET /v1/workshops/{workshop_id}/user_roles': ['facilitator'],
  'PUT /v1/workshops/{workshop_id}/user_roles/{id}': ['facilitator', json(() => ({ role: 'facilitator' }))],
  'DELETE /v1/workshops/{id}/votes': ['facilitator'],
  'DELETE /v1/workshops/{id}/ratings': ['facilitator'],
  'DELETE /v1/workshops/{id}/items': ['facilitator'],
  'DELETE /v1/workshops/{id}/comments': ['facilitator'],
  'DELETE /v1/workshops/{id}/attachments': ['facilitator'],
  'POST /v1/workshops/{id}/messages': ['facilitator', json(() => ({ content: 'Hello all' }))],
  'GET /v1/workshops/{workshop_id}/events': ['member'],
  'GET /v1/workshops/{workshop_id}/timer': ['member'],
  'GET /v1/workshops/{workshop_id}/participation': ['member'],
  'PUT /v1/workshops/{workshop_id}/timer': ['facilitator', json(() => ({ duration_s: 300 }))],
  'GET /v1/workshops/{workshop_id}/invitations': ['facilitator'],
  'POST /v1/workshops/{workshop_id}/invitations': [
    'facilitator',
    json(() => ({ emails: 'invitee@example.test', content: 'Join us' })),
  ],
  'POST /v1/workshops/{workshop_id}/invitations/{id}/resend': ['facilitator'],
  'DELETE /v1/workshops/{workshop_id}/invitations/{id}': ['facilitator'],
  // The link is the permission: any signed-in user may try one (an unknown one answers 404).
  'GET /v1/invitations/{token}': ['public'],
  'POST /v1/invitations/{token}/accept': ['user'],
  'POST /v1/workshops/{workshop_id}/exports': ['facilitator', json(() => ({ type: 'csv' }))],
  'GET /v1/workshops/{workshop_id}/exports': ['facilitator'],
  'GET /v1/workshops/{workshop_id}/exports/{id}': ['facilitator'],
  'GET /v1/workshops/{workshop_id}/exports/{id}/download': ['facilitator'],
  'DELETE /v1/workshops/{workshop_id}/exports/{id}': ['facilitator'],

  'GET /v1/workshops/{workshop_id}/steps': ['member'],
  'POST /v1/workshops/{workshop_id}/steps': ['facilitator', json(() => ({ name: 'Extra' }))],
  'GET /v1/workshops/{workshop_id}/steps/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/steps/{id}': ['facilitator', json(() => ({ name: 'Renamed' }))],
  'DELETE /v1/workshops/{workshop_id}/steps/{id}': ['facilitator'],
  'GET /v1/workshops/{workshop_id}/steps/{step_id}/illustration': ['member'],
  'POST /v1/workshops/{workshop_id}/steps/{step_id}/illustration': [
    'facilitator',
    json((s) => ({ blob: blob(s.file) })),
  ],
  'PUT /v1/workshops/{workshop_id}/steps/{step_id}/illustration': ['facilitator', json(() => ({ align: 'left' }))],
  'DELETE /v1/workshops/{workshop_id}/steps/{step_id}/illustration': ['facilitator'],

  'GET /v1/workshops/{workshop_id}/cards': ['member'],
  'POST /v1/workshops/{workshop_id}/cards': ['member', json(() => ({ type: 'cluster', title: 'New' }))],
  'PUT /v1/workshops/{workshop_id}/cards': [
    'facilitator',
    () => ({
      rawBody: multipart('file', 'type,title,content,cluster,color,aside\ncluster,Imported,,,,\n', {
        name: 'cards.csv',
        type: 'text/csv',
      }),
    }),
  ],
  'POST /v1/workshops/{workshop_id}/cards/merge': ['member', json((s) => ({ cards_id: [s.cluster, s.card] }))],
  'GET /v1/workshops/{workshop_id}/cards/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/cards/{id}': ['member', json(() => ({ title: 'Edited' }))],
  'DELETE /v1/workshops/{workshop_id}/cards/{id}': ['member'],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/votes': ['member'],
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/votes': ['member', json(() => ({ value: 1 }))],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}': ['member', json(() => ({ value: 1 }))],
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}': ['member'],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/ratings': ['member'],
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/ratings': [
    'member',
    json((s) => ({ value: 1, criterium_id: s.criterion })),
  ],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}': ['member', json(() => ({ value: 0 }))],
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}': ['member'],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/items': ['member'],
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/items': [
    'member',
    json((s) => ({ content: 'Pro', section_id: s.section })),
  ],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/items/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/cards/{card_id}/items/{id}': ['member', json(() => ({ content: 'Edited' }))],
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/items/{id}': ['member'],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/comments': ['member'],
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/comments': ['member', json(() => ({ content: 'Hm' }))],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}': ['member'],
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}': ['member'],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/attachments': ['member'],
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/attachments': ['member', json((s) => ({ blob: blob(s.file) }))],
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}': ['member'],
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}': ['member'],

  'GET /v1/workshops/{workshop_id}/criteria': ['member'],
  'POST /v1/workshops/{workshop_id}/criteria': ['facilitator', json(() => ({ title: 'Cost', scale: 1 }))],
  'GET /v1/workshops/{workshop_id}/criteria/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/criteria/{id}': ['facilitator', json(() => ({ title: 'Renamed' }))],
  'DELETE /v1/workshops/{workshop_id}/criteria/{id}': ['facilitator'],
  'GET /v1/workshops/{workshop_id}/sections': ['member'],
  'POST /v1/workshops/{workshop_id}/sections': ['facilitator', json(() => ({ title: 'Cons' }))],
  'GET /v1/workshops/{workshop_id}/sections/{id}': ['member'],
  'PUT /v1/workshops/{workshop_id}/sections/{id}': ['facilitator', json(() => ({ title: 'Renamed' }))],
  'DELETE /v1/workshops/{workshop_id}/sections/{id}': ['facilitator'],

  'GET /v1/workshops/canvas/zones/{id}': ['member'],
  'GET /v1/workshops/{workshop_id}/canvas': ['member'],
  'POST /v1/workshops/{workshop_id}/canvas': ['facilitator', json(() => ({ canvas_id: 'swot' }))],
  'DELETE /v1/workshops/{workshop_id}/canvas': ['facilitator'],
  'PUT /v1/workshops/{workshop_id}/canvas/zones/{id}': ['facilitator', json((s) => ({ cluster_id: s.cluster }))],
};

/** Path parameters known by their own name. */
const BY_NAME: Record<string, (s: Scene) => string> = {
  container: (s) => s.file.container,
  key: (s) => s.file.key,
  token: () => 'not-a-mailed-token',
  join_key: () => 'no-such-join-key',
  token_id: () => 'no-such-token',
  webhook_id: () => 'no-such-webhook',
  delivery_id: () => 'no-such-delivery',
};

/** Which seeded id any other path parameter takes, by the collection named just before it. */
const ID_AFTER: Record<string, (s: Scene) => string> = {
  workshops: (s) => s.workshop,
  cards: (s) => s.card,
  votes: (s) => s.vote,
  ratings: (s) => s.rating,
  items: (s) => s.item,
  comments: (s) => s.comment,
  attachments: (s) => s.attachment,
  steps: (s) => s.step,
  criteria: (s) => s.criterion,
  sections: (s) => s.section,
  user_roles: (s) => s.userRole,
  zones: (s) => s.zone,
  organizations: (s) => s.organization,
  members: (s) => s.orgMember,
  notifications: (s) => s.notification,
  invitations: (s) => s.invitation,
  exports: (s) => s.export,
  sessions: () => 'no-such-session',
  canvas: () => 'swot',
  templates: () => 'retrospective',
};

export function fill(path: string, scene: Scene): string {
  const segments = path.split('/');
  return segments
    .map((segment, index) => {
      if (!segment.startsWith('{')) return segment;
      const id = BY_NAME[segment.slice(1, -1)] ?? ID_AFTER[segments[index - 1]!];
      if (!id) throw new Error(`no seeded id for ${segment} in ${path}: add one to BY_NAME or ID_AFTER`);
      return encodeURIComponent(id(scene));
    })
    .join('/');
}

/** What a test expects to succeed while seeding. */
export async function succeeded<T>(pending: Promise<ApiResponse<T>>): Promise<T> {
  const res = await pending;
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

/**
 * A workshop of `fay` with `pat` as participant, and one of everything in it, seeded through the
 * API; with `organizationOwned`, the workshop is owned by the scene's organization, Fay its admin.
 */
export async function seedScene(
  t: TestServer,
  { fay, pat, organizationOwned = false }: { fay: TestUser; pat: TestUser; organizationOwned?: boolean },
): Promise<Scene> {
  const as = <T>(method: string, path: string, body?: unknown) =>
    succeeded(t.request<T>(method, path, { token: fay.token, body }));
  const organization = await as<OrganizationOutput>('POST', '/v1/organizations', { name: 'Fay & co' });
  const owner = organizationOwned ? { ownerType: 'organization' as const, ownerId: organization.id } : {};
  const workshop = (await seedWorkshopWith(t, fay, [pat], owner)).id;
  const w = `/v1/workshops/${workshop}`;
  const cluster = (await seedCard(t, workshop, fay, { type: 'cluster' })).id;
  const card = (await seedCard(t, workshop, fay, { parentId: cluster })).id;
  const file = await seedFile(t, fay, { name: 'a.png' });
  const step = await as<StepOutput>('POST', `${w}/steps`, { name: 'Vote' });
  await as<IllustrationOutput>('POST', `${w}/steps/${step.id}/illustration`, { blob: blob(file) });
  const criterion = await as<CriterionOutput>('POST', `${w}/criteria`, { title: 'Impact', scale: 1 });
  const section = await as<SectionOutput>('POST', `${w}/sections`, { title: 'Pros' });
  const feedback = `${w}/cards/${card}`;
  const vote = await as<VoteOutput>('POST', `${feedback}/votes`, { value: 1 });
  const rating = await as<RatingOutput>('POST', `${feedback}/ratings`, { value: 1, criterium_id: criterion.id });
  const item = await as<ItemOutput>('POST', `${feedback}/items`, { content: 'Cheap', section_id: section.id });
  const comment = await as<CommentOutput>('POST', `${feedback}/comments`, { content: 'Nice' });
  const attachment = await as<AttachmentOutput>('POST', `${feedback}/attachments`, { blob: blob(file) });
  const canvas = await as<CanvasOutput>('POST', `${w}/canvas`, { canvas_id: 'swot' });
  const roles = await as<UserRoleOutput[]>('GET', `${w}/user_roles`);
  const orgMember = await as<OrganizationMemberOutput>('POST', `/v1/organizations/${organization.id}/members`, {
    email: pat.email,
    role: 'facilitator',
  });
  const [invitation] = await as<InvitationOutput[]>('POST', `${w}/invitations`, {
    emails: `guest-${workshop}@example.test`,
    content: 'Come along',
  });
  const exported = await as<ExportOutput>('POST', `${w}/exports`, { type: 'csv' });
  return {
    workshop,
    cluster,
    card,
    vote: vote.id,
    rating: rating.id,
    criterion: criterion.id,
    item: item.id,
    section: section.id,
    comment: comment.id,
    attachment: attachment.id,
    step: step.id,
    userRole: roles.find((r) => r.user_id === pat.id)!.id,
    zone: canvas.zones[0]!.id,
    organization: organization.id,
    orgMember: orgMember.id,
    notification: (await seedNotification(t, fay)).id,
    invitation: invitation!.id,
    export: exported.id,
    file: { key: file.key, container: file.container },
  };
}

/** A new guest of the workshop, joined with the code its facilitator reads, as the participant page joins. */
export async function guestOf(
  t: Pick<TestServer, 'request'>,
  workshopId: string,
  facilitator: TestUser,
): Promise<TestUser> {
  const { access_code } = await succeeded(
    t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, { token: facilitator.token }),
  );
  const session = await succeeded(
    t.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', { body: { access_code, name: 'Guest' } }),
  );
  return { token: session.token, id: session.user.id, email: '', name: session.user.name };
}

/** Calls `operation` on the scene as `user` (anonymous without), with its classified body. */
export function callOperation(
  t: Pick<TestServer, 'request'>,
  operation: Operation,
  scene: Scene,
  user?: { token: string },
) {
  const body = ACCESS[operation.key]?.[1]?.(scene) ?? {};
  return t.request(operation.method, fill(operation.path, scene), { token: user?.token, ...body });
}

/** The operations guarded as any of `kinds`. */
export function guardedAs(operations: readonly Operation[], ...kinds: Access[]): Operation[] {
  return operations.filter((o) => kinds.includes(ACCESS[o.key]?.[0] as Access));
}
