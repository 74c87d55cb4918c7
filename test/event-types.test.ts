import { describe, expect, it } from 'vitest';
import { ACTION_VISIBILITY, type ChangeInput, type WorkshopAction, type WorkshopEvent } from '../src/domain/events';
import { RENDERERS, type Renderers } from '../src/realtime/renderers';

/*
 * The event types hold the code to the action list. The `@ts-expect-error` lines below are checked
 * by `npm run typecheck` (CI runs it before the tests): each must stay an error, or the check fails.
 */

describe('domain event types', () => {
  it('render every action, and know its visibility', () => {
    expect(Object.keys(RENDERERS).sort()).toEqual(Object.keys(ACTION_VISIBILITY).sort());
  });

  it('refuse a renderer map that leaves an action out', () => {
    const { addCard: _left, ...rest } = RENDERERS;
    // @ts-expect-error addCard has no renderer
    const incomplete: Renderers = rest;
    expect(Object.keys(incomplete)).not.toContain('addCard');
  });

  it('refuse a payload of another action, and an unknown action', () => {
    // @ts-expect-error addVote carries a vote, not a card
    const wrongPayload: ChangeInput = { workshopId: 'w', action: 'addVote', userId: null, change: { card: {} } };
    // @ts-expect-error no such action
    const unknownAction: ChangeInput = { workshopId: 'w', action: 'addBanana', userId: null, change: {} };
    expect([wrongPayload, unknownAction]).toHaveLength(2);
  });

  it('narrow the payload by action', () => {
    const describe = (event: WorkshopEvent): string => {
      switch (event.action) {
        case 'importCards':
          return `${event.change.count} cards`;
        case 'removeCard':
          return event.change.removed_ids.join(',');
        default:
          return event.action;
      }
    };
    const event: WorkshopEvent<'importCards'> = {
      id: 'e',
      workshopId: 'w',
      seq: 1,
      userId: null,
      cardUserId: null,
      createdAt: '',
      action: 'importCards',
      change: { count: 3 },
    };
    expect(describe(event)).toBe('3 cards');
    const actions: WorkshopAction[] = ['moveCards'];
    expect(ACTION_VISIBILITY[actions[0]!]).toBe('everyone');
  });
});
