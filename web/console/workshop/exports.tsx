import type { WorkshopScope } from './context';

export function Exports(_props: { scope: WorkshopScope }) {
  return <p>Not built yet.</p>;
}
