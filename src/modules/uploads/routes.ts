import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';

export function uploadsRoutes(deps: AppDeps) {
  void deps;
  return new Hono<AppEnv>();
}

export function publicFileRoutes(deps: AppDeps) {
  void deps;
  return new Hono<AppEnv>();
}
