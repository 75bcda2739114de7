import { Session } from 'node:inspector';

/** Posts a DevTools protocol command to the session and resolves with its result. */
export type Post = <T = unknown>(method: string, params?: object) => Promise<T>;

/**
 * A profile taken through `node:inspector` (an in-process session: nothing listens on a port): `begin` starts
 * it, `end` stops it and gives the profile. Each call has its own session, so profiles may overlap.
 */
export async function startInspectorProfile<P>(
  begin: (post: Post) => Promise<void>,
  end: (post: Post) => Promise<P>,
): Promise<{ stop(): Promise<P> }> {
  const session = new Session();
  session.connect();
  const post: Post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
    );
  try {
    await begin(post);
  } catch (error) {
    session.disconnect();
    throw error;
  }
  let stopped: Promise<P> | undefined;
  return {
    stop() {
      stopped ??= end(post).finally(() => session.disconnect());
      return stopped;
    },
  };
}
