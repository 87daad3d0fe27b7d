import { Link } from "@remix-run/react";
import { ArrowLeft, BellOff, BellRing, Loader2, Moon } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { useT, type MessageKey } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText, type DisplayError } from "~/lib/errors";
import { disablePush, enablePush, pushState, PushError, type PushState } from "~/lib/push.client";
import {
  NOTIFICATION_KINDS,
  SOCIAL,
  minuteToTime,
  timeToMinute,
  type NotificationKind,
  type NotificationSettings,
} from "~/lib/social";
import { useToast } from "~/components/Toaster";
import { PageTitle, button, buttonClass } from "~/components/ui";

const card = "rounded-3xl border border-line bg-panel/70 p-5 sm:p-6";
const input =
  "block w-full rounded-xl border border-line bg-ink-900/70 px-3.5 py-2.5 text-base text-ink-50 focus:border-brand-light";

/** Browser notifications: permission is asked only when the button is clicked. */
function BrowserPush({ available }: { available: boolean }) {
  const t = useT();
  const toast = useToast();
  const [state, setState] = useState<PushState | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    pushState().then(setState, () => setState("unsupported"));
  }, []);
  const enable = async () => {
    setBusy(true);
    try {
      await enablePush();
      setState("on");
      toast.success(t("notif.pushOn"));
    } catch (err) {
      const reason = err instanceof PushError ? err.reason : null;
      if (reason === "denied") setState("denied");
      toast.error(reason ? t(`notif.pushError.${reason}` as MessageKey) : errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const disable = async () => {
    setBusy(true);
    try {
      await disablePush();
      setState("off");
      toast.success(t("notif.pushOff"));
    } catch (err) {
      toast.error(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const status: MessageKey | null = !available
    ? "notif.pushUnavailable"
    : state === "unsupported"
      ? "notif.pushUnsupported"
      : state === "denied"
        ? "notif.pushDenied"
        : state === "on"
          ? "notif.pushStatusOn"
          : state === "off"
            ? "notif.pushStatusOff"
            : null;
  return (
    <section className={card} aria-labelledby="push-h">
      <h2 id="push-h" className="flex items-center gap-2 text-lg font-bold text-white">
        <BellRing aria-hidden className="size-5 text-brand-light" />
        {t("notif.pushTitle")}
      </h2>
      <p className="mt-1 text-sm text-ink-200">{t("notif.pushLede")}</p>
      {status && (
        <p className="mt-3 text-sm text-ink-100" data-testid="push-status" data-state={state ?? ""}>
          {t(status)}
        </p>
      )}
      <div className="mt-4 flex flex-wrap gap-2">
        {state === "on" ? (
          <button
            type="button"
            onClick={disable}
            disabled={busy}
            className={`${button("secondary", "sm")} max-w-full whitespace-normal! text-left`}
            data-testid="push-disable"
          >
            {busy ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <BellOff aria-hidden className="size-4" />
            )}
            {t("notif.pushDisable")}
          </button>
        ) : (
          <button
            type="button"
            onClick={enable}
            disabled={
              busy || !available || state === "unsupported" || state === "denied" || state === null
            }
            className={`${button("primary", "sm")} max-w-full whitespace-normal! text-left`}
            data-testid="push-enable"
          >
            {busy ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <BellRing aria-hidden className="size-4" />
            )}
            {t("notif.pushEnable")}
          </button>
        )}
      </div>
    </section>
  );
}

export function NotificationSettingsScreen({
  settings,
  error,
  webPush,
}: {
  settings: NotificationSettings | null;
  error: DisplayError | null;
  webPush: boolean;
}) {
  const t = useT();
  const toast = useToast();
  const ids = useId();
  const [off, setOff] = useState<Set<NotificationKind>>(new Set(settings?.disabledKinds ?? []));
  const quiet = settings?.quietHours;
  const [quietOn, setQuietOn] = useState(!!quiet);
  const [start, setStart] = useState(minuteToTime(quiet?.start ?? 22 * 60));
  const [end, setEnd] = useState(minuteToTime(quiet?.end ?? 7 * 60));
  const [zone, setZone] = useState(quiet?.timeZone ?? "UTC");
  const [zones, setZones] = useState<string[]>([quiet?.timeZone ?? "UTC"]);
  const [saving, setSaving] = useState(false);
  // The browser's zone and the list are known only in the browser (no hydration mismatch).
  useEffect(() => {
    const mine = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    if (!quiet?.timeZone) setZone(mine);
    const all =
      typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    setZones([...new Set(["UTC", mine, quiet?.timeZone ?? "UTC", ...all])].sort());
  }, [quiet?.timeZone]);

  const startMin = timeToMinute(start);
  const endMin = timeToMinute(end);
  const quietInvalid = quietOn && (startMin === null || endMin === null || startMin === endMin);

  const save = async () => {
    if (quietInvalid) return;
    setSaving(true);
    try {
      await apiRequest(`${SOCIAL}/notification-settings`, {
        method: "PUT",
        json: {
          disabledKinds: [...off],
          quietHours: quietOn ? { start: startMin, end: endMin, timeZone: zone } : null,
        },
      });
      toast.success(t("notif.saved"));
    } catch (err) {
      toast.error(t("notif.saveFailed", { reason: errorText(err, t) }), save);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-10">
      <Link to="/notifications" className={`${buttonClass.ghost} -ml-3 text-sm`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("notif.title")}
      </Link>
      <PageTitle className="mt-2">{t("notif.settingsTitle")}</PageTitle>
      {error && (
        <p role="alert" className="mt-4 text-danger">
          {error.generic ? t("errors.generic") : error.message}
        </p>
      )}
      <div className="mt-8 space-y-5">
        <BrowserPush available={webPush} />
        {settings && (
          <form
            className="space-y-5"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <fieldset className={card}>
              <legend className="sr-only">{t("notif.kindsTitle")}</legend>
              <h2 aria-hidden className="text-lg font-bold text-white">
                {t("notif.kindsTitle")}
              </h2>
              <p className="mt-1 text-sm text-ink-200">{t("notif.kindsLede")}</p>
              <ul className="mt-4 divide-y divide-line">
                {NOTIFICATION_KINDS.map((k) => (
                  <li key={k} className="flex items-center justify-between gap-4 py-3">
                    <label htmlFor={`${ids}-${k}`} className="min-w-0">
                      <span className="block font-semibold text-ink-50">
                        {t(`notif.kind.${k}` as MessageKey)}
                      </span>
                      <span className="block text-sm text-ink-300">
                        {t(`notif.kindHint.${k}` as MessageKey)}
                      </span>
                    </label>
                    <input
                      id={`${ids}-${k}`}
                      type="checkbox"
                      role="switch"
                      checked={!off.has(k)}
                      onChange={(e) => {
                        const next = new Set(off);
                        if (e.target.checked) next.delete(k);
                        else next.add(k);
                        setOff(next);
                      }}
                      className="h-6 w-11 shrink-0 cursor-pointer appearance-none rounded-full bg-white/15 transition before:block before:size-5 before:translate-x-0.5 before:rounded-full before:bg-white before:transition checked:bg-brand checked:before:translate-x-5.5"
                      data-testid={`kind-${k}`}
                    />
                  </li>
                ))}
              </ul>
            </fieldset>

            <fieldset className={card}>
              <legend className="sr-only">{t("notif.quietTitle")}</legend>
              <div className="flex items-center justify-between gap-4">
                <div>
                  <h2 aria-hidden className="flex items-center gap-2 text-lg font-bold text-white">
                    <Moon aria-hidden className="size-5 text-brand-light" />
                    {t("notif.quietTitle")}
                  </h2>
                  <p className="mt-1 text-sm text-ink-200">{t("notif.quietLede")}</p>
                </div>
                <input
                  type="checkbox"
                  role="switch"
                  aria-label={t("notif.quietToggle")}
                  checked={quietOn}
                  onChange={(e) => setQuietOn(e.target.checked)}
                  className="h-6 w-11 shrink-0 cursor-pointer appearance-none rounded-full bg-white/15 transition before:block before:size-5 before:translate-x-0.5 before:rounded-full before:bg-white before:transition checked:bg-brand checked:before:translate-x-5.5"
                  data-testid="quiet-toggle"
                />
              </div>
              {quietOn && (
                <div className="mt-4 grid gap-4 sm:grid-cols-[1fr_1fr_2fr]">
                  <label className="block text-sm font-semibold text-ink-100">
                    {t("notif.quietStart")}
                    <input
                      type="time"
                      value={start}
                      onChange={(e) => setStart(e.target.value)}
                      className={`${input} mt-1.5`}
                      data-testid="quiet-start"
                    />
                  </label>
                  <label className="block text-sm font-semibold text-ink-100">
                    {t("notif.quietEnd")}
                    <input
                      type="time"
                      value={end}
                      onChange={(e) => setEnd(e.target.value)}
                      className={`${input} mt-1.5`}
                      data-testid="quiet-end"
                    />
                  </label>
                  <label className="block text-sm font-semibold text-ink-100">
                    {t("notif.timeZone")}
                    <select
                      value={zone}
                      onChange={(e) => setZone(e.target.value)}
                      className={`${input} mt-1.5`}
                      data-testid="quiet-zone"
                    >
                      {zones.map((z) => (
                        <option key={z} value={z}>
                          {z}
                        </option>
                      ))}
                    </select>
                  </label>
                  {quietInvalid && (
                    <p role="alert" className="text-sm text-danger sm:col-span-3">
                      {t("notif.quietInvalid")}
                    </p>
                  )}
                </div>
              )}
            </fieldset>

            <button
              type="submit"
              disabled={saving || quietInvalid}
              className={button("primary")}
              data-testid="settings-save"
            >
              {saving && <Loader2 aria-hidden className="size-4 animate-spin" />}
              {t("notif.save")}
            </button>
          </form>
        )}
      </div>
    </div>
  );
}
