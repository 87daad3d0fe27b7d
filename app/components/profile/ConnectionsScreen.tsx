import { Link, useFetcher } from "@remix-run/react";
import { ArrowLeft, CheckCircle2, Link2, Loader2, Unlink } from "lucide-react";
import { useEffect, useState } from "react";
import { useLocale, useT } from "~/i18n";
import {
  failureKey,
  perkKey,
  type Connections,
  type Failure,
  type LinkInfo,
  type ProviderInfo,
} from "~/lib/connections";
import type { DisplayError } from "~/lib/errors";
import { formatDate } from "~/lib/format";
import { appleMusicUserToken, type MusicKitSetup } from "~/lib/musickit";
import { useToast } from "~/components/Toaster";
import { Alert, PageTitle, button } from "~/components/ui";

/** Each provider's mark: its initial on its brand colour (no remote logos: the CSP stays tight). */
const MARK: Record<string, { bg: string; letter: string }> = {
  discord: { bg: "bg-[#5865F2]", letter: "D" },
  spotify: { bg: "bg-[#1DB954]", letter: "S" },
  youtube: { bg: "bg-[#FF0000]", letter: "Y" },
  soundcloud: { bg: "bg-[#FF5500]", letter: "S" },
  apple: { bg: "bg-[#FA243C]", letter: "A" },
};

type ActionData = {
  redirectTo?: string;
  unlinked?: string;
  linkedApple?: string;
  error?: DisplayError;
};

function ProviderRow({
  info,
  link,
  musicKit,
}: {
  info: ProviderInfo;
  link: LinkInfo | undefined;
  musicKit: MusicKitSetup | null;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const fetcher = useFetcher<ActionData>();
  // MusicKit's own dialog is open (Apple Music): busy before anything is posted.
  const [asking, setAsking] = useState(false);
  const busy = fetcher.state !== "idle" || asking;
  const intent = asking ? "link" : fetcher.formData?.get("intent");
  const oauth = info.provider !== "apple";
  // Apple Music links here through MusicKit JS when this server offers it.
  const viaMusicKit = !oauth && !!musicKit && info.available;

  useEffect(() => {
    const d = fetcher.data;
    if (!d || fetcher.state !== "idle") return;
    // The provider's page: a plain navigation (not a form post), so it leaves our origin.
    if (d.redirectTo) window.location.assign(d.redirectTo);
    else if (d.unlinked) toast.success(t("linked.removed", { name: info.name }));
    else if (d.linkedApple) toast.success(t("linked.done", { name: info.name }));
    else if (d.error) toast.error(d.error.generic ? t("errors.generic") : d.error.message);
  }, [fetcher.data, fetcher.state, info.name, t, toast]);

  async function linkApple() {
    if (!musicKit) return;
    setAsking(true);
    try {
      const musicUserToken = await appleMusicUserToken(musicKit);
      fetcher.submit({ intent: "apple", provider: "apple", musicUserToken }, { method: "post" });
    } catch {
      toast.error(t("linked.appleDenied"));
    } finally {
      setAsking(false);
    }
  }

  const mark = MARK[info.provider];
  const status = link
    ? link.active
      ? t("linked.linkedAs", { name: link.displayName ?? link.externalId })
      : t("linked.revoked", { name: info.name })
    : info.available
      ? t("linked.notLinked")
      : t("linked.unavailable");

  return (
    <li
      className="flex flex-wrap items-center gap-4 rounded-2xl border border-line bg-panel/70 p-4 sm:flex-nowrap sm:p-5"
      data-testid={`connection-${info.provider}`}
      data-linked={link ? (link.active ? "yes" : "revoked") : "no"}
      data-available={info.available ? "yes" : "no"}
    >
      <span
        aria-hidden
        className={`grid size-12 shrink-0 place-items-center rounded-2xl text-xl font-black text-white ${mark.bg}`}
      >
        {mark.letter}
      </span>
      <div className="min-w-0 flex-1">
        <h2 className="flex items-center gap-2 text-lg font-bold text-white">
          {info.name}
          {link?.active && <CheckCircle2 aria-label="" className="size-4 text-success" />}
        </h2>
        <p className="text-sm text-ink-100" data-testid={`connection-${info.provider}-status`}>
          {status}
          {link?.active && (
            <span className="text-ink-300">
              {" · "}
              {t("linked.linkedSince", { date: formatDate(link.linkedAt, locale) })}
            </span>
          )}
        </p>
        <p className="text-xs text-ink-300">
          {!oauth && !link && !viaMusicKit ? t("linked.appleHint") : t(perkKey(info.provider))}
        </p>
      </div>
      <fetcher.Form method="post" className="flex shrink-0 gap-2">
        <input type="hidden" name="provider" value={info.provider} />
        {oauth && info.available && (!link || !link.active) && (
          <button
            type="submit"
            name="intent"
            value="link"
            disabled={busy}
            className={button("primary", "sm")}
            data-testid={`link-${info.provider}`}
          >
            {busy && intent === "link" ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <Link2 aria-hidden className="size-4" />
            )}
            {busy && intent === "link"
              ? t("linked.linking", { name: info.name })
              : t(link ? "linked.relink" : "linked.link")}
          </button>
        )}
        {viaMusicKit && (!link || !link.active) && (
          <button
            type="button"
            onClick={linkApple}
            disabled={busy}
            className={button("primary", "sm")}
            data-testid="link-apple"
          >
            {busy && intent === "link" ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <Link2 aria-hidden className="size-4" />
            )}
            {busy && intent === "link"
              ? t("linked.linking", { name: info.name })
              : t(link ? "linked.relink" : "linked.link")}
          </button>
        )}
        {link && (
          <button
            type="submit"
            name="intent"
            value="unlink"
            disabled={busy}
            className={button("secondary", "sm")}
            data-testid={`unlink-${info.provider}`}
            aria-label={`${t("linked.unlink")} ${info.name}`}
          >
            {busy && intent === "unlink" ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <Unlink aria-hidden className="size-4" />
            )}
            {t(busy && intent === "unlink" ? "linked.unlinking" : "linked.unlink")}
          </button>
        )}
      </fetcher.Form>
    </li>
  );
}

export function ConnectionsScreen({
  connections,
  musicKit,
  error,
  linked,
  failed,
  provider,
}: {
  connections: Connections | null;
  musicKit: MusicKitSetup | null;
  error: DisplayError | null;
  linked: string | null;
  failed: Failure | null;
  provider: string | null;
}) {
  const t = useT();
  const name = connections?.providers.find((p) => p.provider === provider)?.name ?? provider ?? "";
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/profile" className={`${button("ghost")} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("linked.back")}
      </Link>
      <PageTitle className="mt-2">{t("linked.title")}</PageTitle>
      <p className="mt-2 max-w-2xl text-ink-200">{t("linked.lede")}</p>
      <div className="mt-6 space-y-3" data-testid="connections-flash">
        {linked && !failed && <Alert success>{t("linked.done", { name })}</Alert>}
        {failed && (
          <Alert
            error={{ status: 400, message: t(failureKey(failed), { name }), generic: false }}
          />
        )}
        {error && <Alert error={error} />}
      </div>
      {connections && (
        <ul className="mt-6 space-y-3" aria-label={t("linked.title")}>
          {connections.providers.map((p) => (
            <ProviderRow
              key={p.provider}
              info={p}
              link={connections.links.find((l) => l.provider === p.provider && l.variant === "web")}
              musicKit={musicKit}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
