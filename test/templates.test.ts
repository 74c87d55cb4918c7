import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/modules/templates/catalog';
import type { InferOutput } from 'valibot';
import type { TemplateOutput, TemplateSummaryOutput } from '../src/modules/templates/schemas';

type TemplateSummary = InferOutput<typeof TemplateSummaryOutput>;
import { expectError } from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada] = useUsers(t, 'Ada');

const REQUIRED = ['retrospective', 'brainstorming', 'swot-analysis', 'impact-effort', 'lean-coffee', 'design-sprint'];

describe('GET /v1/templates', () => {
  it('lists the catalog with id, title and description', async () => {
    const res = await t.request<TemplateSummary[]>('GET', '/v1/templates', { token: ada.token });
    expect(res.status).toBe(200);
    const ids = res.body.map((tpl: { id: string }) => tpl.id);
    for (const id of REQUIRED) expect(ids).toContain(id);
    for (const tpl of res.body) {
      expect(Object.keys(tpl).sort()).toEqual(['description', 'id', 'title']);
      expect(tpl.title.length).toBeGreaterThan(0);
      expect(tpl.description.length).toBeGreaterThan(20);
    }
  });

  it('needs a token', async () => {
    expectError(await t.request('GET', '/v1/templates'), 401, 'unauthenticated');
  });
});

describe('GET /v1/templates/:id', () => {
  it('shows the steps a template creates', async () => {
    const res = await t.request<TemplateOutput>('GET', '/v1/templates/retrospective', { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'retrospective', title: 'Retrospective' });
    expect(res.body.steps.map((s: { name: string }) => s.name)).toEqual([
      'Set the stage',
      'Gather data',
      'Generate insights',
      'Vote on what to tackle',
      'Decide on actions',
    ]);
    for (const step of res.body.steps) expect(step.instructions.length).toBeGreaterThan(40);
  });

  it('gives every template 3 to 6 steps', async () => {
    for (const id of REQUIRED) {
      const res = await t.request<TemplateOutput>('GET', `/v1/templates/${id}`, { token: ada.token });
      expect(res.status, id).toBe(200);
      expect(res.body.steps.length, id).toBeGreaterThanOrEqual(3);
      expect(res.body.steps.length, id).toBeLessThanOrEqual(6);
    }
  });

  it('answers 404 for an unknown template', async () => {
    expectError(await t.request('GET', '/v1/templates/unknown', { token: ada.token }), 404, 'not_found');
  });
});

describe('catalog loading', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'templates-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  // A file names its words by message id (docs/i18n.md#template-and-canvas-text): these are the retrospective's.
  const words = 'template.retrospective';
  const step = (name: string, extra: Record<string, unknown> = {}) => ({
    name: `${words}.step.${name}.name`,
    instructions: `${words}.step.${name}.instructions`,
    ...extra,
  });
  const write = (file: string, body: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), 'templates-'));
    writeFileSync(join(dir, file), JSON.stringify(body));
    return dir;
  };
  const [a, b, c] = ['set_the_stage', 'gather_data', 'generate_insights'];
  const valid = {
    id: 'ok',
    title: `${words}.title`,
    description: `${words}.description`,
    steps: [step(a), step(b), step(c)],
  };

  it('loads a valid file', () => {
    const catalog = loadCatalog(write('ok.json', valid));
    expect(catalog.get('ok')).toMatchObject({ title: `${words}.title`, clusters: [], criteria: [], sections: [] });
    expect(Object.isFrozen(catalog.get('ok')!.steps[0])).toBe(true);
  });

  it('refuses words written in the file instead of named from the catalogs, which no other language would have', () => {
    expect(() => loadCatalog(write('ok.json', { ...valid, title: 'Retrospective' }))).toThrow(
      /ok\.json[\s\S]*title: Must name a message of locales\/en\.json/,
    );
    expect(() => loadCatalog(write('ok.json', { ...valid, description: 'error.no_route' }))).toThrow(
      /description: Must name a message without placeholders/,
    );
  });

  it('refuses typos, too few steps, a wrong id and dangling criterion names', () => {
    expect(() => loadCatalog(write('ok.json', { ...valid, stpes: [] }))).toThrow(/ok\.json[\s\S]*stpes/);
    expect(() =>
      loadCatalog(write('ok.json', { ...valid, steps: [step(a), step(b, { prefs: { allow_vote: true } }), step(c)] })),
    ).toThrow(/allow_vote/);
    expect(() => loadCatalog(write('ok.json', { ...valid, steps: [step(a), step(b)] }))).toThrow(/steps/);
    expect(() => loadCatalog(write('other.json', valid))).toThrow(/must have the id "other"/);
    expect(() =>
      loadCatalog(
        write('ok.json', { ...valid, steps: [step(a, { sort_criterium: `${words}.title` }), step(b), step(c)] }),
      ),
    ).toThrow(/sort_criterium/);
    expect(() =>
      loadCatalog(
        write('ok.json', {
          ...valid,
          steps: [step(a, { view: { sort: 'criterium_average' } }), step(b), step(c)],
        }),
      ),
    ).toThrow(/criterium_average/);
  });
});
