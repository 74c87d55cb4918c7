import type { WorkshopScope } from './context';

export function EventLog(_props: { scope: WorkshopScope }) {
  return <p>Not built yet.</p>;
}
