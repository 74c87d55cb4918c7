import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../http/errors';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody, queryParams } from '../../http/validation';
import { authorizeImport, CSV_MAX_BYTES, importCards } from './csv-import';
import { mergeCards } from './merge';
import {
  CardDetailOutput,
  CreateCardInput,
  GetCardQuery,
  ListCardsQuery,
  MergeCardsInput,
  UpdateCardInput,
} from './schemas';
import { CardOutput } from '../../domain/cards';
import { createCard, getCard, listCardsBody, removeCard, updateCard, type WorkshopRef } from './service';
import { msg } from '../../i18n/messages';

const tag = 'Cards';

function workshopRef(c: Context<AppEnv>): WorkshopRef {
  return { workshopId: c.req.param('workshop_id') ?? '', caller: c.get('user') };
}

/** The CSV of a `multipart/form-data` request's `file` field (415, 400 and 413 otherwise). */
async function csvUpload(c: Context<AppEnv>): Promise<string> {
  let body: Record<string, string | File>;
  try {
    body = await c.req.parseBody();
  } catch {
    throw new AppError('invalid_request', msg('error.uploads.multipart_malformed'));
  }
  const file = body.file;
  if (file === undefined) throw invalid('file', msg('error.cards.csv_required'));
  const size = typeof file === 'string' ? Buffer.byteLength(file) : file.size;
  if (size > CSV_MAX_BYTES) throw new AppError('payload_too_large', msg('error.cards.csv_too_large'));
  return typeof file === 'string' ? file : file.text();
}

function requireMultipart(c: Context<AppEnv>): void {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) {
    throw new AppError('unsupported_media_type', msg('error.cards.csv_multipart_required'));
  }
}

export function cardsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/workshops/:workshop_id/cards',
      doc({ tag, summary: "List a workshop's cards", response: v.array(CardOutput) }),
      queryParams(ListCardsQuery),
      async (c) => {
        return c.body(await listCardsBody(deps, workshopRef(c), c.req.valid('query'), c.get('identityEpoch')), 200, {
          'Content-Type': 'application/json',
        });
      },
    )
    .post(
      '/workshops/:workshop_id/cards',
      doc({ tag, summary: 'Create a card', status: 201, response: CardOutput }),
      jsonBody(CreateCardInput),
      async (c) => {
        return c.json(await createCard(actingDeps(deps, c), workshopRef(c), c.req.valid('json')), 201);
      },
    )
    .put(
      '/workshops/:workshop_id/cards',
      doc({
        tag,
        summary: 'Replace all cards with the cards of a CSV file',
        description:
          'Columns `type,title,content,cluster,color,aside` (header row required, any order). Facilitators only. A bad line changes nothing.',
        response: v.array(CardOutput),
        multipart: { file: { description: 'CSV file, at most 5 MiB', required: true } },
      }),
      async (c) => {
        requireMultipart(c);
        await authorizeImport(actingDeps(deps, c), workshopRef(c));
        const csv = await csvUpload(c);
        return c.json(await importCards(actingDeps(deps, c), workshopRef(c), csv), 200);
      },
    )
    .post(
      '/workshops/:workshop_id/cards/merge',
      doc({ tag, summary: 'Merge cards into a new card', status: 201, response: CardOutput }),
      jsonBody(MergeCardsInput),
      async (c) => {
        return c.json(await mergeCards(actingDeps(deps, c), workshopRef(c), c.req.valid('json')), 201);
      },
    )
    .get(
      '/workshops/:workshop_id/cards/:id',
      doc({ tag, summary: 'Get a card', response: CardDetailOutput }),
      queryParams(GetCardQuery),
      async (c) => {
        return c.json(await getCard(deps, workshopRef(c), c.req.param('id'), c.req.valid('query').attributes), 200);
      },
    )
    .put(
      '/workshops/:workshop_id/cards/:id',
      doc({ tag, summary: 'Update a card', response: CardOutput }),
      jsonBody(UpdateCardInput),
      async (c) => {
        return c.json(
          await updateCard(actingDeps(deps, c), workshopRef(c), c.req.param('id'), c.req.valid('json')),
          200,
        );
      },
    )
    .delete(
      '/workshops/:workshop_id/cards/:id',
      doc({ tag, summary: 'Delete a card (a cluster with its ideas)', status: 204 }),
      async (c) => {
        await removeCard(actingDeps(deps, c), workshopRef(c), c.req.param('id'));
        return c.body(null, 204);
      },
    );
}
