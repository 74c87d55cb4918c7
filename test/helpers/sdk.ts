import { createClient, type WorkshopClient } from '../../client-sdk/src/index';
import type { TestServer } from './server';

let signups = 0;

/** A new account signed up through the SDK, and the SDK client holding its token. */
export async function sdkUser(t: TestServer, name: string): Promise<{ api: WorkshopClient; id: string; email: string }> {
  const api = createClient({ baseUrl: t.url });
  const email = `${name.toLowerCase()}-sdk-${process.pid}-${++signups}@example.test`;
  const { token, user } = await api.post('/v1/auth/signup', { body: { email, password: 'correct horse battery', name } });
  api.setToken(token);
  return { api, id: user.id, email };
}
