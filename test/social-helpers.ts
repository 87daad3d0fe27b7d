import {
  call,
  guestToken,
  latestCode,
  signUp,
  user,
  type CallInit,
  type TestAccount,
} from "./helpers";

/** The social-service client. */
export const social = (path: string, init?: CallInit) => call("social-service", path, init);

/** `n` fresh accounts, signed up in parallel. */
export const accounts = (n: number) => Promise.all(Array.from({ length: n }, () => signUp()));

/** An account whose login e-mail is verified through the real code route. */
export async function verified(): Promise<TestAccount> {
  const a = await signUp();
  const res = await user("/users/emails/verify", {
    token: a.token,
    body: { email: a.email, code: await latestCode(a.email) },
  });
  if (res.status !== 201)
    throw new Error(`verify failed: ${res.status} ${JSON.stringify(res.body)}`);
  return a;
}

export const follow = (a: TestAccount, dj: TestAccount) =>
  social("/dj-fans", { token: a.token, body: { djUuid: dj.uuid } });
export const invite = (a: TestAccount, b: TestAccount) =>
  social("/friend-invitations", { token: a.token, body: { userUuid: b.uuid } });
export const block = (a: TestAccount, b: TestAccount) =>
  social("/blocked-users", { token: a.token, body: { userUuid: b.uuid } });
export const handle = (a: TestAccount, invitationUuid: string, status = "accepted") =>
  social("/friend-invitations/handle-friend", { token: a.token, body: { invitationUuid, status } });
export const areFriends = async (a: TestAccount, b: TestAccount) =>
  (await social(`/friends/${b.uuid}`, { token: a.token })).body.friends as boolean;

/** Makes a and b friends through the real routes. */
export async function befriend(a: TestAccount, b: TestAccount) {
  const inv = await invite(a, b);
  if (inv.status !== 201) throw new Error(`invite failed: ${inv.status}`);
  const res = await handle(b, inv.body.uuid);
  if (res.status !== 200) throw new Error(`accept failed: ${res.status}`);
}

/**
 * Who may call a route: 401 without a token, 403 for a guest (an account is needed) and,
 * for admin routes, 403 for a plain user.
 */
export async function expectGuarded(
  method: string,
  path: string,
  body: unknown,
  opts: { admin?: boolean; guestsAllowed?: boolean } = {},
) {
  const init = { method, body };
  const out: number[] = [(await social(path, init)).status];
  if (!opts.guestsAllowed)
    out.push((await social(path, { ...init, token: await guestToken() })).status);
  if (opts.admin) out.push((await social(path, { ...init, token: (await signUp()).token })).status);
  return out;
}
