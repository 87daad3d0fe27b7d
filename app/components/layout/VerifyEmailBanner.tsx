import { Link, useFetcher, useLocation } from "@remix-run/react";
import { MailWarning } from "lucide-react";
import { useT } from "~/i18n";
import type { User } from "~/lib/types";

/**
 * "Verify your e-mail" under the header on every page until the address is verified (issue
 * 20: sign-up logs you in before that and nothing nudged you later). "Send the code again"
 * is the verify page's own resend action (POST /verify-email, intent=resend); the link goes
 * to that page to type the code. Not shown on the verify page itself.
 */
export function VerifyEmailBanner({ user }: { user: User | null }) {
  const t = useT();
  const fetcher = useFetcher<{ ok?: boolean; error?: { message: string } }>();
  const { pathname } = useLocation();
  if (!user || user.emailVerified || !user.email || pathname === "/verify-email") return null;
  const sent = fetcher.state === "idle" && fetcher.data?.ok;
  const failed = fetcher.state === "idle" ? fetcher.data?.error?.message : undefined;
  return (
    <div
      role="region"
      aria-label={t("verifyBanner.label")}
      className="border-b border-amber-300/30 bg-amber-300/10"
      data-testid="verify-banner"
    >
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2.5 text-sm sm:px-6">
        <MailWarning aria-hidden className="size-5 shrink-0 text-amber-200" />
        <p className="min-w-0 flex-1 text-amber-50">
          {t("verifyBanner.text", { email: user.email })}
        </p>
        <p role="status" className="text-amber-100">
          {sent ? t("verify.resent", { email: user.email }) : (failed ?? "")}
        </p>
        <div className="flex items-center gap-2">
          <fetcher.Form method="post" action="/verify-email">
            <input type="hidden" name="intent" value="resend" />
            <input type="hidden" name="email" value={user.email} />
            <button
              type="submit"
              disabled={fetcher.state !== "idle"}
              className="rounded-full border border-amber-200/50 px-3 py-1.5 font-semibold text-amber-50 hover:bg-amber-300/15 disabled:opacity-60"
              data-testid="verify-banner-resend"
            >
              {fetcher.state !== "idle" ? t("verify.resendPending") : t("verifyBanner.resend")}
            </button>
          </fetcher.Form>
          <Link
            to={`/verify-email?email=${encodeURIComponent(user.email)}`}
            className="rounded-full bg-amber-300 px-3 py-1.5 font-bold text-ink-950 hover:brightness-110"
          >
            {t("verifyBanner.enterCode")}
          </Link>
        </div>
      </div>
    </div>
  );
}
