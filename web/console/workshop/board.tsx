import type { WorkshopScope } from './context';

export function Board(_props: { scope: WorkshopScope }) {
  return <p>Not built yet.</p>;
}
