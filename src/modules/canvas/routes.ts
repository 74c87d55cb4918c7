import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';

export function canvasRoutes(deps: AppDeps) {
  void deps;
  return new Hono<AppEnv>();
}
