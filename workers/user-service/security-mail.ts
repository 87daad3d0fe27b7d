import type { UserRow } from "../db/schema";
import type { Env } from "../env";
import { notify } from "../queues/notifications";

/**
 * Tells a person, at their login address, that something guarding their account changed
 * (issue 13; OWASP ASVS 2.5.5): their password (changed, reset, or set by an admin), or an
 * address added to or removed from the account. If it was not them, the mail is how they
 * find out; it names no secret and links nothing that acts.
 */
export type AccountChange = "password" | "email-added" | "email-removed";

const SAY: Record<AccountChange, (detail?: string) => { subject: string; line: string }> = {
  password: () => ({
    subject: "Your Hangout password was changed",
    line: "The password of your Hangout account was just changed, and every other session was signed out.",
  }),
  "email-added": (d) => ({
    subject: "An e-mail address was added to your Hangout account",
    line: `The address ${d} was just added to your Hangout account.`,
  }),
  "email-removed": (d) => ({
    subject: "An e-mail address was removed from your Hangout account",
    line: `The address ${d} was just removed from your Hangout account.`,
  }),
};

export async function tellAccountChanged(
  env: Env,
  user: Pick<UserRow, "email" | "nickname">,
  change: AccountChange,
  detail?: string,
): Promise<void> {
  if (!user.email) return;
  const { subject, line } = SAY[change](detail);
  await notify(env, {
    channel: "email",
    to: user.email,
    subject,
    text: `Hi ${user.nickname},\n\n${line}\n\nIf this was you, there is nothing to do. If it was not, reset your password now from the log-in page ("Forgot password?") and check the addresses on your account.`,
  });
}
