/**
 * Starts a turn atomically: claims `activeTurnId`, stores the user message and logs
 * `message.created`, or does nothing when a turn is already running.
 * The stream field is `event`, as in `EVENT_FIELD` of events/event-codec.ts.
 * KEYS: session hash, messages list, events stream. ARGV: turnId, message JSON, event JSON.
 * Returns the event id, 0 when a turn is running, -1 when the session is gone.
 */
export const BEGIN_TURN_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local active = redis.call('HGET', KEYS[1], 'activeTurnId')
if active and active ~= '' then return 0 end
redis.call('HSET', KEYS[1], 'activeTurnId', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
return redis.call('XADD', KEYS[3], '*', 'event', ARGV[3])
`;

/** Clears `activeTurnId` only if it still names this turn. KEYS: session hash. ARGV: turnId. */
export const END_TURN_LUA = `
if redis.call('HGET', KEYS[1], 'activeTurnId') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'activeTurnId', '')
  return 1
end
return 0
`;
