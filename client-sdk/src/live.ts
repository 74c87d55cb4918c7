/**
 * The live entry point: a workshop's state kept current over Socket.IO, for screens that render
 * from `subscribe(state => …)`. Pass it a client from the REST entry point.
 */
export { openWorkshop } from './live/session.js';
export type { LiveOptions } from './live/socket.js';
export type { LiveWorkshop } from './live/store.js';
export {
  inLobby,
  privacyOf,
  timerRemainingMs,
  type EventName,
  type LiveStatus,
  type PayloadOf,
  type Privacy,
  type WorkshopState,
} from './live/state.js';
export type * from './generated/events.js';
