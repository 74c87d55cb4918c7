import type { WorkshopScope } from './context';

export function People(_props: { scope: WorkshopScope }) {
  return <p>Not built yet.</p>;
}
