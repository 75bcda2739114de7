/**
 * Order rules for the frames one peer sends on a connection (AMQP 1.0 part 2: 2.5.1 a channel carries
 * frames of a session only between its begin and end; 2.6.2 a handle is used only between the attach
 * that binds it and the detach that frees it; 2.7.5 the first transfer of a delivery carries its
 * delivery-id and delivery-tag). Handles and channels are the sending peer's own numbers, so the frames
 * of one direction are checked on their own.
 */
import type { AmqpFrame } from './amqp-frame-decoder.ts';
import { field, type Finding } from './amqp-frame-rules.ts';

function uintOf(frame: AmqpFrame, name: string): number | undefined {
  const v = field(frame, name);
  return v && (v.type === 'uint' || v.type === 'ushort') ? v.value : undefined;
}

interface LinkState {
  /** The previous transfer had `more` set: the next one continues that delivery. */
  midDelivery: boolean;
}

/** Findings (kind `order` or `spec`) for the frames one peer sent on one connection, in order. */
export function checkSentOrder(frames: readonly AmqpFrame[]): Finding[] {
  const findings: Finding[] = [];
  const sessions = new Map<number, Map<number, LinkState>>();
  const say = (kind: Finding['kind'], frame: AmqpFrame, index: number, message: string): void => {
    findings.push({
      kind,
      path: `${frame.performative}`,
      message,
      where: `frame ${index} (${frame.performative}, channel ${frame.channel})`,
    });
  };
  frames.forEach((frame, index) => {
    if (frame.type !== 0 || frame.performative === undefined) return;
    const name = frame.performative;
    if (name === 'open' || name === 'close') return;
    if (name === 'begin') {
      if (sessions.has(frame.channel)) say('spec', frame, index, 'begin on a channel whose session has not ended');
      sessions.set(frame.channel, new Map());
      return;
    }
    const links = sessions.get(frame.channel);
    if (!links) return say('order', frame, index, `${name} on a channel with no session begun`);
    if (name === 'end') return void sessions.delete(frame.channel);
    if (name === 'disposition') return;
    const handle = uintOf(frame, 'handle');
    if (handle === undefined) {
      if (name !== 'flow') say('spec', frame, index, `${name} without a handle`);
      return;
    }
    const link = links.get(handle);
    if (name === 'attach') {
      if (link) say('order', frame, index, `attach of handle ${handle}, which is still attached`);
      links.set(handle, { midDelivery: false });
      return;
    }
    if (!link)
      return say('order', frame, index, `${name} with handle ${handle} before its attach (or after its detach)`);
    if (name === 'detach') return void links.delete(handle);
    if (name === 'transfer') {
      const aborted = field(frame, 'aborted')?.value === true;
      if (
        !link.midDelivery &&
        (uintOf(frame, 'delivery-id') === undefined || field(frame, 'delivery-tag')?.type !== 'binary')
      ) {
        say('spec', frame, index, 'the first transfer of a delivery has no delivery-id or delivery-tag');
      }
      link.midDelivery = field(frame, 'more')?.value === true && !aborted;
    }
  });
  return findings;
}
