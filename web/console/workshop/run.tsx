import type { WorkshopScope } from './context';

export function Run(_props: { scope: WorkshopScope }) {
  return <p>Not built yet.</p>;
}
