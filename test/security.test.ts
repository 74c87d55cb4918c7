import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttachmentOutput } from '../src/domain/attachments';
import type { CanvasOutput } from '../src/domain/canvas';
import type { CommentOutput } from '../src/domain/comments';
import type { CriterionOutput } from '../src/domain/criteria';
import type { ItemOutput } from '../src/domain/items';
import type { ExportOutput } from '../src/domain/events';
import type { InvitationOutput } from '../src/domain/invitations';
import type { OrganizationMemberOutput } from '../src/modules/organizations/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { RatingOutput } from '../src/domain/ratings';
import type { SectionOutput } from '../src/domain/sections';
import type { StepOutput } from '../src/domain/steps';
import type { IllustrationOutput } from '../src/domain/steps';
import type { VoteOutput } from '../src/domain/votes';
import type { GuestSessionOutput } from '../src/modules/workshops/schemas';
import type { UserRoleOutput } from '../src/domain/workshops';
import { and, eq, isNotNull } from 'drizzle-orm';
import {
  expectError,
  multipart,
  pngImage,
  seedCard,
  seedFile,
  seedMember,
  seedNotification,
  seedWorkshopWith,
  type TestUser,
} from './helpers/factories';
import { useUsers } from './helpers/cast';
import type { OpenApiDocument } from './helpers/openapi';
import { startTestServer, type ApiResponse, type RequestOptions } from './helpers/server';

/*
 * Who may call what, for every operation the service documents (in the spirit of unkey's
 * `runCommonRouteTests`). The operations come from the running service's own OpenAPI document,
 * so a new route gets these cases without anyone writing them, and the suite fails until the
 * route is classified in ACCESS below. Expectations (docs/api.md#who-may-do-what,
 * docs/api.md#authentication-and-errors):
 *   anonymous                         → 401 unauthenticated, on every /v1 route but the public ones;
 *   a stranger (signed up, no member) → 404 not_found on workshop-, organization- and owner-scoped routes, never 403;
 *   a participant of the workshop     → 403 forbidden on facilitator-only routes;
 *   a facilitator of another workshop → 404 not_found on workshop-scoped routes;
 *   a guest (docs/api.md#guests)      → as a participant in their workshop, 404 in any other, and 403
 *                                       forbidden on everything outside workshops and their own account;
 *   a participant under a private step → 404 not_found on everything about another participant's card
 *                                       (docs/api.md#private-writing-and-anonymous-authors), as if it did
 *                                       not exist.
 */

// The operations must be known while vitest collects the tests, so this file's server starts now
// rather than in beforeAll.
const t = await startTestServer();
afterAll(() => t.close());

const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
const operations = Object.entries(document.paths)
  .flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      op,
      key: `${method.toUpperCase()} ${path}`,
    })),
  )
  // Deletes last, so that a wrongly allowed one does not take the scene from the cases after it.
  .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

/**
 * How an operation is guarded:
 * - `public`: no token needed (signup, login, mail confirmation, the OpenID sign-in, signed file links);
 * - `user`: any signed-in user, about nothing another user owns (catalogs, uploads, creating, joining);
 * - `owner`: the caller's own resource by id (a notification): anyone else gets 404;
 * - `organization`: members of the organization: anyone else gets 404;
 * - `member`: members of the workshop; participants as the current step's prefs allow;
 * - `facilitator`: facilitators of the workshop only (docs/api.md#who-may-do-what).
 */
type Access = 'public' | 'user' | 'owner' | 'organization' | 'member' | 'facilitator';

/** The seeded resources whose ids fill path parameters and bodies. */
interface Scene {
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

type Body = (s: Scene) => Pick<RequestOptions, 'body' | 'rawBody'>;
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
const ACCESS: Record<string, [Access, Body?]> = {
  'GET /files/{container}/{key}': ['public'],
  'POST /v1/auth/signup': ['public'],
  'POST /v1/auth/login': ['public'],
  'POST /v1/auth/confirm': ['public'],
  'GET /v1/auth/oidc': ['public'],
  'GET /v1/auth/oidc/start': ['public'],
  'GET /v1/auth/oidc/callback': ['public'],
  'POST /v1/auth/logout': ['user'],

  'GET /v1/user/me': ['user'],
  'PUT /v1/user/me': ['user', json(() => ({ name: 'Renamed' }))],
  'PUT /v1/user/me/avatar': ['user', png],
  'POST /v1/user/me/confirmation': ['user'],
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

/** The routes outside workshops that a guest's token reaches (docs/api.md#guests); every other is 403 for them. */
const GUEST_REACHES = new Set([
  'POST /v1/auth/logout',
  'GET /v1/user/me',
  'PUT /v1/user/me',
  'GET /v1/user/me/notifications',
  'PUT /v1/user/me/notifications/read',
  'PUT /v1/user/me/notifications/{id}',
  // Uploads become attachments on the workshop's cards.
  'POST /v1/uploads',
]);

/** Path parameters known by their own name. */
const BY_NAME: Record<string, (s: Scene) => string> = {
  container: (s) => s.file.container,
  key: (s) => s.file.key,
  token: () => 'not-a-mailed-token',
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
  canvas: () => 'swot',
  templates: () => 'retrospective',
};

function fill(path: string, scene: Scene): string {
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

const [fay, pat, otto, stan, pia] = useUsers(t, 'Fay', 'Pat', 'Otto', 'Stan', 'Pia');
// Otto facilitates a workshop of his own: a facilitator, only not of this one.
beforeAll(() => void seedWorkshopWith(t, otto, []));

/** What a test expects to succeed while seeding. */
async function ok<T>(pending: Promise<ApiResponse<T>>): Promise<T> {
  const res = await pending;
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

/** A workshop of Fay with Pat as participant, and one of everything in it, seeded through the API. */
async function seedScene(): Promise<Scene> {
  const as = <T>(method: string, path: string, body?: unknown) =>
    ok(t.request<T>(method, path, { token: fay.token, body }));
  const workshop = (await seedWorkshopWith(t, fay, [pat])).id;
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
  const organization = await as<OrganizationOutput>('POST', '/v1/organizations', { name: 'Fay & co' });
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

/** One fresh scene per group of cases, so that a wrongly allowed write spoils only its own group. */
function useScene() {
  const scene = {} as Scene;
  beforeAll(async () => {
    Object.assign(scene, await seedScene());
  });
  return scene;
}

/** A new guest of the workshop, joined with its code. */
async function guestOf(workshopId: string, facilitator: TestUser): Promise<TestUser> {
  const { access_code } = await ok(
    t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, { token: facilitator.token }),
  );
  const session = await ok(
    t.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', { body: { access_code, name: 'Guest' } }),
  );
  return { token: session.token, id: session.user.id, email: '', name: session.user.name };
}

function call(operation: (typeof operations)[number], scene: Scene, user?: TestUser) {
  const body = ACCESS[operation.key]?.[1]?.(scene) ?? {};
  return t.request(operation.method, fill(operation.path, scene), { token: user?.token, ...body });
}

const guarded = (...kinds: Access[]) => operations.filter((o) => kinds.includes(ACCESS[o.key]?.[0] as Access));
const label = (o: (typeof operations)[number]) => o.key;

describe('the classification', () => {
  it('covers every documented operation, and only those', () => {
    const documented = operations.map((o) => o.key).sort();
    expect(
      documented.filter((key) => !(key in ACCESS)),
      'documented but not classified in ACCESS',
    ).toEqual([]);
    expect(
      Object.keys(ACCESS).filter((key) => !documented.includes(key)),
      'classified but not documented',
    ).toEqual([]);
  });

  it('agrees with the document on which operations are public', () => {
    const publicInDocument = operations
      .filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0)
      .map(label)
      .sort();
    expect(guarded('public').map(label).sort()).toEqual(publicInDocument);
  });
});

describe('anonymous', () => {
  const scene = useScene();

  it.each(operations.filter((o) => ACCESS[o.key]?.[0] !== 'public').map((o) => [label(o), o] as const))(
    '%s → 401',
    async (_, operation) => {
      expectError(await call(operation, scene), 401, 'unauthenticated');
    },
  );

  it.each(guarded('public').map((o) => [label(o), o] as const))('%s needs no token', async (_, operation) => {
    expect((await call(operation, scene)).status).not.toBe(401);
  });
});

describe('a stranger', () => {
  const scene = useScene();

  it.each(guarded('owner', 'organization', 'member', 'facilitator').map((o) => [label(o), o] as const))(
    '%s → 404',
    async (_, operation) => {
      expectError(await call(operation, scene, stan), 404, 'not_found');
    },
  );
});

describe('a participant', () => {
  const scene = useScene();

  it.each(guarded('facilitator').map((o) => [label(o), o] as const))('%s → 403', async (_, operation) => {
    expectError(await call(operation, scene, pat), 403, 'forbidden');
  });
});

describe('a facilitator of another workshop', () => {
  const scene = useScene();

  it.each(guarded('member', 'facilitator').map((o) => [label(o), o] as const))('%s → 404', async (_, operation) => {
    expectError(await call(operation, scene, otto), 404, 'not_found');
  });
});

describe('a guest of the workshop', () => {
  const scene = useScene();
  const guest = {} as TestUser;
  beforeAll(async () => {
    Object.assign(guest, await guestOf(scene.workshop, fay));
  });

  it.each(guarded('facilitator').map((o) => [label(o), o] as const))('%s → 403', async (_, operation) => {
    expectError(await call(operation, scene, guest), 403, 'forbidden');
  });

  it.each(
    guarded('user', 'organization')
      .filter((o) => !GUEST_REACHES.has(o.key))
      .map((o) => [label(o), o] as const),
  )('%s → 403', async (_, operation) => {
    expectError(await call(operation, scene, guest), 403, 'forbidden');
  });
});

describe('a guest of another workshop', () => {
  const scene = useScene();
  const guest = {} as TestUser;
  beforeAll(async () => {
    const elsewhere = await seedWorkshopWith(t, otto, []);
    Object.assign(guest, await guestOf(elsewhere.id, otto));
  });

  it.each(guarded('owner', 'member', 'facilitator').map((o) => [label(o), o] as const))(
    '%s → 404',
    async (_, operation) => {
      expectError(await call(operation, scene, guest), 404, 'not_found');
    },
  );
});

describe('a participant while a private step hides the card', () => {
  const scene = useScene();
  beforeAll(async () => {
    // The scene's cards become Pia's, a participant, and a step with cards_visible: own is current.
    await seedMember(t, scene.workshop, pia);
    await t.write(async (tx, { cards, events }) => {
      await tx.update(cards).set({ userId: pia.id }).where(eq(cards.workshopId, scene.workshop));
      await tx
        .update(events)
        .set({ cardUserId: pia.id })
        .where(and(eq(events.workshopId, scene.workshop), isNotNull(events.cardUserId)));
    });
    const w = `/v1/workshops/${scene.workshop}`;
    await ok(
      t.request('PUT', `${w}/steps/${scene.step}`, {
        token: fay.token,
        body: { name: 'Vote', prefs: { cards_visible: 'own' } },
      }),
    );
    await ok(t.request('PUT', w, { token: fay.token, body: { current_step_id: scene.step } }));
  });
  const aboutTheCard = operations.filter(
    (o) => /\/cards\/(\{id\}|\{card_id\})/.test(o.path) && ACCESS[o.key]?.[0] === 'member',
  );

  it('covers the card and everything on it', () => {
    expect(aboutTheCard.length).toBeGreaterThan(20);
  });

  it.each(aboutTheCard.map((o) => [label(o), o] as const))('%s → 404', async (_, operation) => {
    expectError(await call(operation, scene, pat), 404, 'not_found');
  });

  it('a merge naming the hidden cards answers as for cards that do not exist (400 on cards_id)', async () => {
    const merge = operations.find((o) => o.key === 'POST /v1/workshops/{workshop_id}/cards/merge')!;
    expectError(await call(merge, scene, pat), 400, 'invalid_request');
  });

  it('the card list, the workshop and the log leave them out; the facilitator and Pia still see them', async () => {
    const w = `/v1/workshops/${scene.workshop}`;
    const listed = async (user: TestUser) =>
      (await ok(t.request<Array<{ id: string }>>('GET', `${w}/cards`, { token: user.token }))).map((card) => card.id);
    expect(await listed(pat)).toEqual([]);
    expect(await listed(pia)).toEqual(expect.arrayContaining([scene.cluster, scene.card]));
    expect(await listed(fay)).toEqual(expect.arrayContaining([scene.cluster, scene.card]));
    const workshop = await ok(
      t.request<{ criteria: Array<{ ratings: unknown[] }>; cards_visible: string }>('GET', w, { token: pat.token }),
    );
    expect(workshop.cards_visible).toBe('own');
    expect(workshop.criteria.flatMap((criterion) => criterion.ratings)).toEqual([]);
    const log = await ok(t.request<Array<{ action: string }>>('GET', `${w}/events?per_page=100`, { token: pat.token }));
    // Positions are everyone's (the canvas document holds them); nothing else names the card.
    expect(log.filter((event) => event.action !== 'moveCards' && JSON.stringify(event).includes(scene.card))).toEqual(
      [],
    );
  });
});
