/*
 * Reading something over REST when a view opens and again after each logged change that may
 * touch it. Changes often come in bursts (a merge, a round of votes): a read asked for while one
 * is under way runs once after it, never several at a time.
 */
import { useEffect } from 'preact/hooks';
import type { Action } from '../../forms';
import type { WorkshopScope } from '../context';

/** Runs `read` through `action` now and after each change whose action or event name matches `touches`. */
export function useReread(
  scope: WorkshopScope,
  touches: RegExp,
  action: Action,
  read: () => Promise<unknown>,
  keys: unknown[],
): void {
  useEffect(() => {
    let reading = false;
    let again = false;
    const run = async () => {
      if (reading) return void (again = true);
      reading = true;
      await action.run(read);
      reading = false;
      if (again) {
        again = false;
        void run();
      }
    };
    void run();
    return scope.onChange((name) => {
      if (touches.test(name)) void run();
    });
  }, keys);
}
