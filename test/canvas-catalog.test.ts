import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCanvasCatalog } from '../src/modules/canvas/catalog';
import type { PredefinedCanvasOutput } from '../src/modules/canvas/schemas';
import { expectError } from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada] = useUsers(t, 'Ada');

const REQUIRED = [
  'swot',
  'impact-effort',
  'lean-canvas',
  'business-model-canvas',
  'empathy-map',
  'start-stop-continue',
];

type Zone = { id: string; name: string; x: number; y: number; rows: number; cols: number; cluster_id: null };

describe('GET /v1/canvas', () => {
  it('lists at least the six required predefined canvases, each a well-formed grid', async () => {
    const res = await t.request<PredefinedCanvasOutput[]>('GET', '/v1/canvas', { token: ada.token });
    expect(res.status).toBe(200);
    const ids = res.body.map((c: { id: string }) => c.id);
    for (const id of REQUIRED) expect(ids).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const canvas of res.body as Array<{
      id: string;
      name: string;
      background: { cols: number; rows: number };
      zones: Zone[];
    }>) {
      expect(Object.keys(canvas).sort()).toEqual(['background', 'id', 'name', 'zones']);
      expect(canvas.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(canvas.name.length).toBeGreaterThan(0);
      expect(Object.keys(canvas.background).sort()).toEqual(['cols', 'rows']);
      expect(canvas.zones.length).toBeGreaterThan(0);
      let area = 0;
      for (const zone of canvas.zones) {
        expect(Object.keys(zone).sort()).toEqual(['cluster_id', 'cols', 'id', 'name', 'rows', 'x', 'y']);
        expect(zone.cluster_id).toBeNull();
        expect(zone.x + zone.cols).toBeLessThanOrEqual(canvas.background.cols);
        expect(zone.y + zone.rows).toBeLessThanOrEqual(canvas.background.rows);
        area += zone.cols * zone.rows;
      }
      // The layouts tile their background: no gaps (overlaps are refused at load).
      expect(area, canvas.id).toBe(canvas.background.cols * canvas.background.rows);
    }
  });

  it('needs a token', async () => {
    expectError(await t.request('GET', '/v1/canvas'), 401, 'unauthenticated');
    expectError(await t.request('GET', '/v1/canvas/swot'), 401, 'unauthenticated');
  });
});

describe('GET /v1/canvas/:id', () => {
  it('returns one predefined canvas with its readable zone ids', async () => {
    const res = await t.request('GET', '/v1/canvas/swot', { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: 'swot',
      name: 'SWOT analysis',
      background: { cols: 12, rows: 8 },
      zones: [
        { id: 'strengths', name: 'Strengths', x: 0, y: 0, cols: 6, rows: 4, cluster_id: null },
        { id: 'weaknesses', name: 'Weaknesses', x: 6, y: 0, cols: 6, rows: 4, cluster_id: null },
        { id: 'opportunities', name: 'Opportunities', x: 0, y: 4, cols: 6, rows: 4, cluster_id: null },
        { id: 'threats', name: 'Threats', x: 6, y: 4, cols: 6, rows: 4, cluster_id: null },
      ],
    });
    const lean = await t.request<PredefinedCanvasOutput>('GET', '/v1/canvas/lean-canvas', { token: ada.token });
    expect(lean.body.zones.map((z) => z.id)).toEqual([
      'problem',
      'solution',
      'key-metrics',
      'unique-value-proposition',
      'unfair-advantage',
      'channels',
      'customer-segments',
      'cost-structure',
      'revenue-streams',
    ]);
  });

  it('answers 404 for an unknown canvas', async () => {
    expectError(await t.request('GET', '/v1/canvas/nope', { token: ada.token }), 404, 'not_found');
    expectError(await t.request('GET', '/v1/canvas/SWOT', { token: ada.token }), 404, 'not_found');
  });
});

describe('catalog files', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  function catalogWith(files: Record<string, unknown>) {
    const dir = mkdtempSync(join(tmpdir(), 'canvas-catalog-'));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(content));
    return () => loadCanvasCatalog(dir);
  }
  // A file names its words by message id (docs/i18n.md#template-and-canvas-text).
  const good = {
    id: 'grid',
    name: 'canvas.swot.name',
    background: { cols: 2, rows: 1 },
    zones: [{ id: 'a', name: 'canvas.swot.zone.strengths', x: 0, y: 0, cols: 1, rows: 1 }],
  };

  it('loads a valid folder', () => {
    const catalog = catalogWith({ 'grid.json': good })();
    expect([...catalog.canvases.keys()]).toEqual(['grid']);
    expect(catalog.outputs('en')[0]!.zones[0]).toEqual({
      id: 'a',
      name: 'Strengths',
      x: 0,
      y: 0,
      cols: 1,
      rows: 1,
      cluster_id: null,
    });
  });

  it('refuses files that are wrong, naming the file and the problem', () => {
    expect(catalogWith({ 'other.json': good })).toThrow(/must have the id "other"/);
    expect(catalogWith({ 'grid.json': { ...good, extra: 1 } })).toThrow(/grid\.json/);
    expect(catalogWith({ 'grid.json': { ...good, zones: [{ ...good.zones[0], x: 1.5 }] } })).toThrow(
      /inside the background/,
    );
    const twice = [good.zones[0], { ...good.zones[0], x: 1 }];
    expect(catalogWith({ 'grid.json': { ...good, zones: twice } })).toThrow(/unique/);
    const overlapping = [good.zones[0], { id: 'b', name: 'canvas.swot.zone.threats', x: 0.5, y: 0, cols: 1, rows: 1 }];
    expect(catalogWith({ 'grid.json': { ...good, zones: overlapping } })).toThrow(/overlap/);
    expect(catalogWith({ 'grid.json': { ...good, background: { cols: 0, rows: 1 } } })).toThrow(/background\.cols/);
    expect(catalogWith({ 'grid.json': { ...good, zones: [{ ...good.zones[0], name: 'Strengths' }] } })).toThrow(
      /zones\.0\.name: Must name a message of locales\/en\.json/,
    );
  });
});
