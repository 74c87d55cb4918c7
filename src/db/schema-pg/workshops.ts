import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { StepPrefs } from '../../domain/permissions';
import type { View } from '../../domain/view';
import { createdAt, idColumn, json, updatedAt } from './columns';
import { users } from './users';

/* The tables of `../schema/workshops.ts`, in PostgreSQL. */

export const workshops = pgTable(
  'workshops',
  {
    id: idColumn(),
    ownerType: text('owner_type', { enum: ['user', 'organization'] }).notNull(),
    ownerId: text('owner_id').notNull(),
    createdBy: text('created_by')
      .notNull()
      .references(() => users.id),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    state: text('state', { enum: ['running', 'archived'] })
      .notNull()
      .default('running'),
    currentStepId: text('current_step_id'),
    view: json<View>('view').notNull(),
    votePositive: integer('vote_positive').notNull().default(-1),
    voteNegative: integer('vote_negative').notNull().default(-1),
    voteMaxPositive: integer('vote_max_positive').notNull().default(3),
    voteMaxNegative: integer('vote_max_negative').notNull().default(3),
    dailyMail: boolean('daily_mail').notNull().default(true),
    changeStepNotifications: boolean('change_step_notifications').notNull().default(true),
    forceSync: boolean('force_sync').notNull().default(false),
    allowGuests: boolean('allow_guests').notNull().default(true),
    language: text('language').notNull().default('en'),
    accessCode: text('access_code').notNull(),
    lastCardNumber: integer('last_card_number').notNull().default(0),
    lastEventSeq: integer('last_event_seq').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('workshops_owner').on(t.ownerType, t.ownerId),
    uniqueIndex('workshops_access_code_running')
      .on(t.accessCode)
      .where(sql`${t.state} = 'running'`),
  ],
);

export const workshopMembers = pgTable(
  'workshop_members',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['facilitator', 'participant'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('workshop_members_workshop_user').on(t.workshopId, t.userId),
    index('workshop_members_user').on(t.userId),
  ],
);

export const steps = pgTable(
  'steps',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    instructions: text('instructions').notNull().default(''),
    prefs: json<StepPrefs>('prefs').notNull(),
    view: json<View>('view').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('steps_workshop_position').on(t.workshopId, t.position)],
);

export const stepIllustrations = pgTable(
  'step_illustrations',
  {
    id: idColumn(),
    stepId: text('step_id')
      .notNull()
      .references(() => steps.id, { onDelete: 'cascade' }),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    align: text('align', { enum: ['left', 'above'] })
      .notNull()
      .default('above'),
    fileKey: text('file_key').notNull(),
    container: text('container').notNull(),
    mimetype: text('mimetype').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('step_illustrations_step').on(t.stepId),
    // Whether an upload illustrates a step (the sweep of unattached uploads).
    index('step_illustrations_file').on(t.fileKey),
  ],
);

export const criteria = pgTable(
  'criteria',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    scale: integer('scale').notNull(),
    position: integer('position').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('criteria_workshop').on(t.workshopId, t.position)],
);

export const sections = pgTable(
  'sections',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    position: integer('position').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('sections_workshop').on(t.workshopId, t.position)],
);

export const invitations = pgTable(
  'invitations',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    state: text('state', { enum: ['pending', 'accepted'] })
      .notNull()
      .default('pending'),
    role: text('role', { enum: ['facilitator', 'participant'] })
      .notNull()
      .default('participant'),
    tokenHash: text('token_hash').notNull(),
    content: text('content').notNull(),
    invitedBy: text('invited_by')
      .notNull()
      .references(() => users.id),
    acceptedBy: text('accepted_by').references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('invitations_token').on(t.tokenHash),
    uniqueIndex('invitations_pending_email')
      .on(t.workshopId, t.email)
      .where(sql`state = 'pending'`),
    index('invitations_workshop').on(t.workshopId, t.createdAt),
  ],
);

export const workshopTimers = pgTable('workshop_timers', {
  workshopId: text('workshop_id')
    .primaryKey()
    .references(() => workshops.id, { onDelete: 'cascade' }),
  state: text('state', { enum: ['stopped', 'running', 'paused'] }).notNull(),
  durationS: integer('duration_s').notNull(),
  endsAt: text('ends_at'),
  remainingMs: integer('remaining_ms').notNull().default(0),
  updatedAt: updatedAt(),
});
