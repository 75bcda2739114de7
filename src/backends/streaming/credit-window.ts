/**
 * The credit a receiver link should be granted. Credit is how many more transfers the service may send
 * (AMQP 1.0 §2.6.7); events in flight plus events buffered must stay within the prefetch window, so
 * credit is topped up only to `prefetch - buffered - outstanding`. Small top-ups wait until they are
 * worth a flow frame (`minGrant`), except when nothing is outstanding and the buffer is empty
 * (otherwise the link would stall).
 */
export function creditToGrant(prefetch: number, buffered: number, outstanding: number, minGrant: number): number {
  const room = prefetch - buffered - outstanding;
  if (room <= 0) return 0;
  if (room >= minGrant || outstanding === 0) return room;
  return 0;
}
