import { describe, expect, it } from 'vitest';
import type { CanvasOutput } from '../src/domain/canvas';
import type { CardOutput } from '../src/domain/cards';
import type { StepOutput } from '../src/domain/steps';
import type { WorkshopOutput } from '../src/domain/workshops';
import { t as say } from '../src/i18n/messages';
import type { PredefinedCanvasOutput } from '../src/modules/canvas/schemas';
import type { TemplateOutput } from '../src/modules/templates/schemas';
import { useServer, useUsers } from './helpers/cast';
import { requestsOn } from './helpers/requests';

/*
 * The templates' and predefined canvases' words are in every language
 * (docs/i18n.md#template-and-canvas-text): listed in the request's Accept-Language, and taken once,
 * in the workshop's language, when a workshop or its canvas is made from one. The real server on
 * a real port, called as the console calls it.
 */

const t = useServer();
const [ada, bea] = useUsers(t, 'Ada', 'Bea');
const as = requestsOn(t);

/** `path` as `user` asks for it with `accept` as Accept-Language (none when undefined). */
async function get<T>(user: { token: string }, path: string, accept?: string): Promise<T> {
  const res = await t.request<T>('GET', path, {
    token: user.token,
    ...(accept !== undefined && { headers: { 'accept-language': accept } }),
  });
  expect(res.status, `GET ${path}`).toBe(200);
  return res.body;
}

/** What a workshop made from a template holds: its steps and its clusters' titles, in order. */
async function madeFrom(user: { token: string }, body: Record<string, unknown>, accept?: string) {
  const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
    token: user.token,
    body,
    ...(accept !== undefined && { headers: { 'accept-language': accept } }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const workshop = res.body;
  const steps = await get<StepOutput[]>(user, `/v1/workshops/${workshop.id}/steps`);
  const cards = await get<CardOutput[]>(user, `/v1/workshops/${workshop.id}/cards`);
  return { workshop, steps, cards, clusters: cards.filter((c) => c.type === 'cluster').map((c) => c.title) };
}

describe('a workshop created from a template', () => {
  it('is not left with English steps and clusters when it is created in French', async () => {
    const { workshop, steps, clusters } = await madeFrom(ada, { template: 'retrospective', language: 'fr' });
    expect(workshop).toMatchObject({ language: 'fr', title: 'Rétrospective' });
    expect(workshop.description).toBe(say('fr', 'template.retrospective.description'));
    expect(steps.map((s) => s.name)).toEqual([
      'Planter le décor',
      'Recueillir les faits',
      'Dégager des enseignements',
      'Voter pour les priorités',
      'Décider des actions',
    ]);
    expect(steps[1]!.instructions).toBe(say('fr', 'template.retrospective.step.gather_data.instructions'));
    expect(steps[1]!.instructions).toMatch(/^Écrivez une carte par observation/);
    expect(clusters).toEqual(['Ce qui s’est bien passé', 'Ce qui s’est mal passé', 'Idées à essayer']);
    expect(workshop.sections.map((s) => s.title)).toEqual(['Action', 'Responsable']);
  });

  it('keeps its rating steps sorted by their criterion when the criteria are named in German', async () => {
    const { workshop, steps } = await madeFrom(ada, { template: 'impact-effort', language: 'de' });
    expect(workshop.criteria.map((c) => c.title)).toEqual(['Wirkung', 'Aufwand']);
    const [impact, effort] = workshop.criteria;
    expect(steps.map((s) => s.view.sort_criterium_id)).toEqual([null, null, impact!.id, effort!.id, impact!.id]);
    expect(steps[2]!.name).toBe('Die Wirkung bewerten');
  });

  it('gives the starter idea in Spanish, and speaks its creator’s locale when the body names no language', async () => {
    expect((await t.request('PUT', '/v1/user/me', { token: bea.token, body: { locale: 'es' } })).status).toBe(204);
    const { workshop, cards } = await madeFrom(bea, { template: 'design-sprint' });
    expect(workshop).toMatchObject({ language: 'es', title: 'Sprint de diseño' });
    const idea = cards.find((c) => c.type === 'idea')!;
    expect(idea.title).toBe('Nuestro objetivo dentro de dos años');
    expect(idea.content).toBe(say('es', 'template.design_sprint.idea.our_goal_in_two_years.content'));
  });

  it('stays in English, word for word, in an English workshop even when the browser asks for German', async () => {
    const { workshop, steps, clusters } = await madeFrom(ada, { template: 'swot-analysis', language: 'en' }, 'de');
    expect(workshop.title).toBe('SWOT analysis');
    expect(steps.map((s) => s.name)).toEqual([
      'Set the objective',
      'Internal factors',
      'External factors',
      'Prioritize',
      'Derive strategies',
    ]);
    expect(clusters).toEqual(['Strengths', 'Weaknesses', 'Opportunities', 'Threats']);
  });
});

describe('the template listing', () => {
  it('is not in English for a German browser (Accept-Language: de)', async () => {
    const list = await get<Array<{ id: string; title: string; description: string }>>(ada, '/v1/templates', 'de-AT');
    const retro = list.find((tpl) => tpl.id === 'retrospective')!;
    expect(retro).toEqual({
      id: 'retrospective',
      title: 'Retrospektive',
      description: say('de', 'template.retrospective.description'),
    });
    expect(list.find((tpl) => tpl.id === 'swot-analysis')!.title).toBe('SWOT-Analyse');
    const english = await get<Array<{ id: string; title: string }>>(ada, '/v1/templates');
    for (const [index, tpl] of list.entries()) expect(tpl.id).toBe(english[index]!.id);

    const one = await get<TemplateOutput>(ada, '/v1/templates/retrospective', 'de');
    expect(one.steps[0]).toEqual({
      name: 'Den Rahmen setzen',
      instructions: say('de', 'template.retrospective.step.set_the_stage.instructions'),
    });
  });

  it('is in English, as before, without a header or for a language without a catalog', async () => {
    for (const accept of [undefined, 'ja']) {
      const list = await get<Array<{ id: string; title: string }>>(ada, '/v1/templates', accept);
      expect(list.find((tpl) => tpl.id === 'retrospective')!.title).toBe('Retrospective');
      const one = await get<TemplateOutput>(ada, '/v1/templates/retrospective', accept);
      expect(one.steps[0]!.name).toBe('Set the stage');
    }
  });
});

describe('a predefined canvas', () => {
  const SWOT_IN_ARABIC = ['نقاط القوة', 'نقاط الضعف', 'الفرص', 'التهديدات'];

  it('gives an Arabic workshop the SWOT zones in Arabic, whatever language the browser asks for', async () => {
    const workshop = await as<WorkshopOutput>(ada, 'POST', '/v1/workshops', { title: 'تحليل', language: 'ar' });
    const res = await t.request<CanvasOutput>('POST', `/v1/workshops/${workshop.id}/canvas`, {
      token: ada.token,
      body: { canvas_id: 'swot' },
      headers: { 'accept-language': 'en' },
    });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('تحليل SWOT');
    expect(res.body.zones.map((z) => z.name)).toEqual(SWOT_IN_ARABIC);
    const stored = await get<CanvasOutput>(ada, `/v1/workshops/${workshop.id}/canvas`);
    expect(stored.zones.map((z) => z.name)).toEqual(SWOT_IN_ARABIC);
  });

  it('is listed with Arabic zone names for Accept-Language: ar, and English ones without it', async () => {
    const arabic = await get<PredefinedCanvasOutput>(ada, '/v1/canvas/swot', 'ar');
    expect(arabic.zones.map((z) => [z.id, z.name])).toEqual(
      ['strengths', 'weaknesses', 'opportunities', 'threats'].map((id, i) => [id, SWOT_IN_ARABIC[i]]),
    );
    const list = await get<PredefinedCanvasOutput[]>(ada, '/v1/canvas', 'ar');
    expect(list.find((c) => c.id === 'swot')).toEqual(arabic);
    const english = await get<PredefinedCanvasOutput>(ada, '/v1/canvas/swot');
    expect(english.zones.map((z) => z.name)).toEqual(['Strengths', 'Weaknesses', 'Opportunities', 'Threats']);
  });
});
