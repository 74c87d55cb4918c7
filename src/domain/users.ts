import * as v from 'valibot';

export const PlanOutput = v.object({ name: v.string(), workshops_max_attendees: v.number() });
