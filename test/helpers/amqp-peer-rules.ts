/**
 * Rules that tie what the server sent to what the client sent on one connection (AMQP 1.0 part 2):
 * 2.4.1 / 2.7.1 no frame larger than the client's max-frame-size, no channel above either side's
 * channel-max; 2.5.1 / 2.7.2 a begin answering the client carries remote-channel; 2.6.2 / 2.7.3 an attach
 * answers a client attach of the same name with the other role, and a sender's attach carries
 * initial-delivery-count; 2.6.6 a detach answering a closing detach closes too; 2.6.7 a sender sends
 * only within the credit its receiver granted; 2.5.6 transfers stay within the client's session incoming
 * window; 2.4.3 nothing follows the server's close.
 */
import type { AmqpFrame } from './amqp-frame-decoder.ts';
import { field, type Finding } from './amqp-frame-rules.ts';
import type { RecordedUnit } from './recording-proxy.ts';

const UINT_MAX = 4294967295;
const USHORT_MAX = 65535;

const num = (frame: AmqpFrame, name: string): number | undefined => {
  const v = field(frame, name);
  return v && (v.type === 'uint' || v.type === 'ushort') ? v.value : undefined;
};

interface Link {
  name: string;
  /** The server's role on the link. */
  serverSends: boolean;
  /** Sender side: the server's delivery-count; receiver-granted limit = delivery-count + link-credit at the client. */
  deliveryCount: number;
  limit: number;
  clientClosed: boolean;
  midDelivery: boolean;
}

/** Findings (kind `spec`) for the server's frames of one connection, read with the client's in order. */
export function checkServerAgainstClient(units: readonly RecordedUnit[]): Finding[] {
  const findings: Finding[] = [];
  let clientMaxFrame = UINT_MAX;
  let channelMax = USHORT_MAX;
  let serverClosed = false;
  const clientChannels = new Set<number>();
  /** Server channel → client channel, from the server's begin. */
  const serverToClient = new Map<number, number>();
  /** The client's incoming window per client channel, as of its begin or latest flow (2.5.6). */
  const clientWindows = new Map<number, { nextIncomingId: number | undefined; incomingWindow: number }>();
  /** Per server channel: the server's next-outgoing-id now, and as its begin announced it. */
  const outgoing = new Map<number, number>();
  const initialOutgoing = new Map<number, number>();
  const clientLinks = new Map<string, Link | string>(); // `${clientChannel}/${handle}` → link (or name until answered)
  const serverLinks = new Map<string, Link>(); // `${serverChannel}/${handle}` → link
  /** A client flow for a link the server has not answered yet: applied when its attach comes. */
  const earlyFlows = new Map<string, { deliveryCount: number | undefined; credit: number }>();
  let serverIndex = -1; // index of the current frame among the server's frames
  const say = (frame: AmqpFrame, message: string, detail?: string): void => {
    const where =
      `server frame ${serverIndex} (${frame.performative ?? 'empty'}, channel ` +
      `${frame.channel})${detail ? `: ${detail}` : ''}`;
    findings.push({ kind: 'spec', path: `${frame.performative}`, message, where });
  };

  /** 2.5.6: a transfer needs room in the client's incoming window (its next-incoming-id + incoming-window). */
  const checkWindow = (frame: AmqpFrame): void => {
    const id = outgoing.get(frame.channel);
    const window = clientWindows.get(serverToClient.get(frame.channel) ?? -1);
    if (id === undefined || !window) return;
    // Until the client's first flow, its window counts from the server's initial next-outgoing-id.
    const base = window.nextIncomingId ?? initialOutgoing.get(frame.channel) ?? 0;
    if (id >= base + window.incomingWindow) {
      say(
        frame,
        "a transfer beyond the client's session incoming window",
        `transfer-id ${id}, next-incoming-id ${base}, window ${window.incomingWindow}`,
      );
    }
    outgoing.set(frame.channel, id + 1);
  };

  for (const { from, unit } of units) {
    if (unit.kind !== 'frame' || unit.type !== 0) continue;
    const frame = unit;
    const name = frame.performative;
    if (from === 'client') {
      if (name === 'open') {
        clientMaxFrame = num(frame, 'max-frame-size') ?? UINT_MAX;
        channelMax = Math.min(channelMax, num(frame, 'channel-max') ?? USHORT_MAX);
      } else if (name === 'begin') {
        clientChannels.add(frame.channel);
        clientWindows.set(frame.channel, {
          nextIncomingId: undefined,
          incomingWindow: num(frame, 'incoming-window') ?? 0,
        });
      } else if (name === 'attach')
        clientLinks.set(`${frame.channel}/${num(frame, 'handle')}`, String(field(frame, 'name')?.value));
      if (name === 'flow')
        clientWindows.set(frame.channel, {
          nextIncomingId: num(frame, 'next-incoming-id'),
          incomingWindow: num(frame, 'incoming-window') ?? 0,
        });
      if (name === 'flow' || name === 'detach') {
        const key = `${frame.channel}/${num(frame, 'handle')}`;
        const link = clientLinks.get(key);
        if (typeof link === 'string' && name === 'flow')
          earlyFlows.set(key, { deliveryCount: num(frame, 'delivery-count'), credit: num(frame, 'link-credit') ?? 0 });
        if (typeof link !== 'object') continue;
        if (name === 'detach') link.clientClosed ||= field(frame, 'closed')?.value === true;
        else if (link.serverSends)
          link.limit = (num(frame, 'delivery-count') ?? link.deliveryCount) + (num(frame, 'link-credit') ?? 0);
      }
      continue;
    }
    serverIndex++;
    if (serverClosed) say(frame, "sent after the server's close");
    if (frame.size > clientMaxFrame)
      say(frame, "a frame above the client's max-frame-size", `${frame.size} > ${clientMaxFrame} bytes`);
    if (frame.channel > channelMax)
      say(frame, 'a channel above the negotiated channel-max', `${frame.channel} > ${channelMax}`);
    if (name === 'open') channelMax = Math.min(channelMax, num(frame, 'channel-max') ?? USHORT_MAX);
    else if (name === 'close') serverClosed = true;
    else if (name === 'begin') {
      const remote = num(frame, 'remote-channel');
      if (remote === undefined || !clientChannels.has(remote))
        say(frame, 'a begin that answers no client begin', `remote-channel ${remote ?? 'null'}`);
      else serverToClient.set(frame.channel, remote);
      outgoing.set(frame.channel, num(frame, 'next-outgoing-id') ?? 0);
      initialOutgoing.set(frame.channel, num(frame, 'next-outgoing-id') ?? 0);
    } else if (name === 'attach') {
      const clientChannel = serverToClient.get(frame.channel);
      const linkName = String(field(frame, 'name')?.value);
      const serverSends = field(frame, 'role')?.value === false;
      const entry = [...clientLinks].find(([key, v]) => v === linkName && key.startsWith(`${clientChannel}/`));
      if (!entry) say(frame, 'an attach that answers no client attach on its session', `'${linkName}'`);
      const initial = num(frame, 'initial-delivery-count');
      if (serverSends && initial === undefined) say(frame, "a sender's attach without initial-delivery-count");
      const link: Link = {
        name: linkName,
        serverSends,
        deliveryCount: initial ?? 0,
        limit: initial ?? 0,
        clientClosed: false,
        midDelivery: false,
      };
      const early = entry && earlyFlows.get(entry[0]);
      if (early) link.limit = (early.deliveryCount ?? link.deliveryCount) + early.credit;
      if (entry) clientLinks.set(entry[0], link);
      serverLinks.set(`${frame.channel}/${num(frame, 'handle')}`, link);
    } else if (name === 'transfer' || name === 'flow' || name === 'detach') {
      if (name === 'transfer') checkWindow(frame);
      const link = serverLinks.get(`${frame.channel}/${num(frame, 'handle')}`);
      if (!link) continue; // amqp-link-order.ts reports frames of unattached handles
      if (name === 'detach' && link.clientClosed && field(frame, 'closed')?.value !== true) {
        say(frame, "a detach answering the client's closing detach without closed=true", `'${link.name}'`);
      }
      if (name === 'flow' && link.serverSends && num(frame, 'delivery-count') !== undefined)
        link.deliveryCount = num(frame, 'delivery-count')!;
      if (name === 'transfer' && !link.midDelivery) {
        if (link.deliveryCount >= link.limit) {
          say(
            frame,
            "a delivery beyond the client's link credit",
            `'${link.name}', delivery-count ${link.deliveryCount}, limit ${link.limit}`,
          );
        }
        link.deliveryCount++;
      }
      if (name === 'transfer')
        link.midDelivery = field(frame, 'more')?.value === true && field(frame, 'aborted')?.value !== true;
    }
  }
  return findings;
}
