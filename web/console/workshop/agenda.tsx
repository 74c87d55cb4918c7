import type { WorkshopScope } from './context';

export function Agenda(_props: { scope: WorkshopScope }) {
  return <p>Not built yet.</p>;
}
