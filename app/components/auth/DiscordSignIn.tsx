import { useFetcher } from "@remix-run/react";
import { Loader2 } from "lucide-react";
import { useEffect } from "react";
import { useT } from "~/i18n";
import type { DisplayError } from "~/lib/errors";
import { Alert, button } from "~/components/ui";

/**
 * "Continue with Discord" on the log-in page (issue 16): asks /auth/discord for Discord's
 * consent page (the state goes into this browser's cookie there) and goes to it. A plain
 * button, not a second submit form: the e-mail form stays the page's only form.
 */
export function DiscordSignIn({ failed }: { failed: string | null }) {
  const t = useT();
  const fetcher = useFetcher<{ redirectTo?: string; error?: DisplayError }>();
  const busy = fetcher.state !== "idle";
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.redirectTo)
      window.location.assign(fetcher.data.redirectTo);
  }, [fetcher.data, fetcher.state]);
  return (
    <div className="mt-6 space-y-3 border-t border-line pt-6">
      {failed && <Alert error={{ status: 400, message: failed, generic: false }} />}
      {fetcher.data?.error && <Alert error={fetcher.data.error} />}
      <button
        type="button"
        disabled={busy}
        onClick={() => fetcher.submit({}, { method: "post", action: "/auth/discord" })}
        className={`${button("secondary")} w-full`}
        data-testid="discord-sign-in"
      >
        {busy ? (
          <Loader2 aria-hidden className="size-4 animate-spin" />
        ) : (
          <span
            aria-hidden
            className="grid size-5 place-items-center rounded bg-[#5865F2] text-xs font-black text-white"
          >
            D
          </span>
        )}
        {t("login.discord")}
      </button>
    </div>
  );
}
