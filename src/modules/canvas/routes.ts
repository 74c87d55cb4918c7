import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { requestLanguage } from '../../http/language';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { CreateCanvasInput, LinkZoneInput, PredefinedCanvasOutput } from './schemas';
import { CanvasOutput, ZoneOutput } from '../../domain/canvas';
import {
  createCanvas,
  deleteCanvas,
  getCanvas,
  getPredefinedCanvas,
  getZone,
  linkZone,
  listPredefinedCanvases,
} from './service';

const tag = 'Canvas';
const NAMES_IN_LANGUAGE =
  "Names in the request's `Accept-Language` (English when none of its languages is offered); a canvas made from one takes them in its workshop's language.";

export function canvasRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/canvas',
      doc({
        tag,
        summary: 'List the predefined canvases',
        description: NAMES_IN_LANGUAGE,
        response: v.array(PredefinedCanvasOutput),
      }),
      (c) => {
        return c.json(listPredefinedCanvases(requestLanguage(c)), 200);
      },
    )
    .get(
      '/canvas/:id',
      doc({
        tag,
        summary: 'Get a predefined canvas',
        description: NAMES_IN_LANGUAGE,
        response: PredefinedCanvasOutput,
      }),
      (c) => {
        return c.json(getPredefinedCanvas(c.req.param('id'), requestLanguage(c)), 200);
      },
    )
    .get(
      '/workshops/canvas/zones/:id',
      doc({ tag, summary: 'Get a zone of a canvas by its id alone', response: ZoneOutput }),
      async (c) => {
        return c.json(await getZone(deps, c.get('user'), c.req.param('id')), 200);
      },
    )
    .get(
      '/workshops/:workshop_id/canvas',
      doc({ tag, summary: 'Get the workshop canvas with its zones', response: CanvasOutput }),
      async (c) => {
        return c.json(await getCanvas(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .post(
      '/workshops/:workshop_id/canvas',
      doc({
        tag,
        summary: 'Create the workshop canvas (replacing the current one)',
        description:
          "Give `name`, `background` and `zones`, or `canvas_id` naming a predefined canvas whose members fill those left out, its names in the workshop's language.",
        status: 201,
        response: CanvasOutput,
      }),
      jsonBody(CreateCanvasInput),
      async (c) => {
        return c.json(
          await createCanvas(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.valid('json')),
          201,
        );
      },
    )
    .delete(
      '/workshops/:workshop_id/canvas',
      doc({ tag, summary: 'Delete the workshop canvas and its zones', status: 204 }),
      async (c) => {
        await deleteCanvas(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'));
        return c.body(null, 204);
      },
    )
    .put(
      '/workshops/:workshop_id/canvas/zones/:id',
      doc({ tag, summary: 'Link a zone to a cluster, or unlink it with null', status: 204 }),
      jsonBody(LinkZoneInput),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        await linkZone(actingDeps(deps, c), c.get('user'), workshop_id, id, c.req.valid('json').cluster_id);
        return c.body(null, 204);
      },
    );
}
