/**
 * Claims expire as on the service: a link attached under a claim is detached with
 * `amqp:link:detach-forced` ("… Code: RenewToken. Details: Unauthorized access. 'Listen' claim(s) are
 * required …") once the claim's token expired and no new token came; a renewed claim keeps its link.
 * Raw rhea, so the exact detach is seen rather than an SDK's reaction to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { closeable, openRheaConnection } from '../../helpers/rhea-connection.ts';
import { waitUntil } from '../../helpers/fleet.ts';
import { fakeJwt } from '../../helpers/fake-jwt.ts';

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'Y2xhaW0tZXhwaXJ5LWtleQ==';

function sas(resource: string, expiresAtS: number): string {
  const sr = encodeURIComponent(resource);
  const sig = encodeURIComponent(createHmac('sha256', KEY).update(`${sr}\n${expiresAtS}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expiresAtS}&skn=${KEY_NAME}`;
}

/** Puts a token on $cbs and resolves with the reply's status code and description. */
async function putToken(
  connection: any,
  audience: string,
  token: string,
  type = 'servicebus.windows.net:sastoken',
): Promise<[number, string]> {
  const replyTo = `cbs-replies-${Math.random().toString(36).slice(2)}`;
  const receiver = connection.open_receiver({ source: { address: '$cbs' }, target: { address: replyTo } });
  const sender = connection.open_sender({ target: { address: '$cbs' } });
  await Promise.all([
    new Promise((r) => receiver.once('receiver_open', r)),
    new Promise((r) => sender.once('sendable', r)),
  ]);
  const reply = new Promise<any>((resolve) => receiver.once('message', (ctx: any) => resolve(ctx.message)));
  sender.send({
    message_id: replyTo,
    reply_to: replyTo,
    body: token,
    application_properties: { operation: 'put-token', name: audience, type },
  });
  const message = await reply;
  sender.close();
  receiver.close();
  return [
    Number(message.application_properties['status-code']),
    String(message.application_properties['status-description']),
  ];
}

/** A link's remote detach error, once it comes. */
function detachError(link: any): Promise<{ condition: string; description: string }> {
  return new Promise((resolve) =>
    link.once(link.is_sender() ? 'sender_close' : 'receiver_close', (ctx: any) =>
      resolve((ctx.sender ?? ctx.receiver).remote.detach?.error ?? {}),
    ),
  );
}

test(
  'a link whose claim expired is detached with detach-forced / RenewToken; a renewed claim keeps its ' + 'link',
  async (t) => {
    const { emulator, hubName, track } = await startTestEmulator(t, { partitions: 2, sasKeys: { [KEY_NAME]: KEY } });
    const connection = await openRheaConnection(emulator.port, {});
    track(closeable(connection));
    const endpoint = `sb://127.0.0.1:${emulator.port}/`;
    const partition = (p: number) => `${hubName}/ConsumerGroups/$Default/Partitions/${p}`;
    const nowS = () => Math.floor(Date.now() / 1000);

    // Expired tokens are refused at put-token, SAS and JWT alike.
    const [expiredStatus, expiredText] = await putToken(
      connection,
      `${endpoint}${partition(0)}`,
      sas(`${endpoint}${hubName}`, nowS() - 1),
    );
    assert.equal(expiredStatus, 401);
    assert.match(expiredText, /^ExpiredToken/);
    assert.equal(
      (await putToken(connection, `${endpoint}${partition(0)}`, fakeJwt('user', Date.now() - 1_000), 'jwt'))[0],
      401,
    );

    // Partition 0 and the hub's sender get a 2-3 s claim that is never renewed; partition 1 gets one that is.
    const shortExpiry = nowS() + 3;
    assert.equal(
      (await putToken(connection, `${endpoint}${partition(0)}`, sas(`${endpoint}${partition(0)}`, shortExpiry)))[0],
      202,
    );
    assert.equal(
      (await putToken(connection, `${endpoint}${hubName}`, sas(`${endpoint}${hubName}`, shortExpiry)))[0],
      202,
    );
    assert.equal(
      (await putToken(connection, `${endpoint}${partition(1)}`, sas(`${endpoint}${partition(1)}`, shortExpiry)))[0],
      202,
    );
    const expiring = connection.open_receiver({ source: { address: partition(0) }, credit_window: 0 });
    const renewed = connection.open_receiver({ source: { address: partition(1) }, credit_window: 0 });
    const sender = connection.open_sender({ target: { address: hubName } });
    await Promise.all([
      new Promise((r) => expiring.once('receiver_open', r)),
      new Promise((r) => renewed.once('receiver_open', r)),
      new Promise((r) => sender.once('sendable', r)),
    ]);
    const receiverDetached = detachError(expiring);
    const senderDetached = detachError(sender);
    assert.equal(
      (await putToken(connection, `${endpoint}${partition(1)}`, sas(`${endpoint}${partition(1)}`, nowS() + 60)))[0],
      202,
    );

    const receiverError = await receiverDetached;
    assert.equal(receiverError.condition, 'amqp:link:detach-forced');
    assert.match(
      receiverError.description,
      new RegExp(
        `is force detached\\. Code: RenewToken\\. Details: Unauthorized access\\. 'Listen' claim\\(s\\) are required ` +
          `to perform this operation\\. Resource: 'sb://.*/${hubName.toLowerCase()}/consumergroups/\\$default/` +
          `partitions/0'\\.`,
      ),
    );
    assert.ok(Date.now() >= shortExpiry * 1000, 'not before the token expired');
    const senderError = await senderDetached;
    assert.equal(senderError.condition, 'amqp:link:detach-forced');
    assert.match(senderError.description, /'Send' claim\(s\) are required/);
    assert.equal(renewed.is_open(), true, 'the renewed claim kept its link');
    await waitUntil(() => emulator.claims.expiredLinks.length === 2, 2_000, 'the expired links in the claims audit');
    assert.deepEqual(emulator.claims.expiredLinks.map((l) => [l.role, l.entityPath]).sort(), [
      ['consumer', partition(0)],
      ['producer', hubName],
    ]);
    const record = emulator.audit.records.find((r) => r.partitionId === '0');
    assert.equal(record?.detachCondition, 'amqp:link:detach-forced');
    // The audit counts every put-token: 2 refused, 4 granted.
    assert.deepEqual(
      emulator.claims.puts.map((p) => p.statusCode),
      [401, 401, 202, 202, 202, 202],
    );
    assert.equal(emulator.claims.putsFor(`${endpoint}${partition(1)}`).length, 2);
  },
);
