import { useEffect, useId, useState } from "react";
import { useToast } from "~/components/Toaster";
import { useRootData } from "~/hooks/useRootData";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT } from "~/i18n";
import type { RefillChoice } from "~/lib/api.client";
import { useMyCrates } from "~/lib/crate-cache";
import { errorText } from "~/lib/errors";
import { isSpecialCrate } from "~/lib/songs";

/**
 * "When your queue runs out, refill it from…" (issue 20): one of the user's own crates, or
 * none. The room reads the choice when a DJ's queue has nothing left to play.
 */
export function RefillPicker() {
  const t = useT();
  const id = useId();
  const client = useSongsClient();
  const toast = useToast();
  const userUuid = useRootData()?.user?.uuid ?? null;
  const { crates, ensure } = useMyCrates(userUuid);
  const [choice, setChoice] = useState<RefillChoice | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    void ensure();
    client
      .refill()
      .then(setChoice)
      .catch(() => setChoice({ crateUuid: null, crateName: null }));
  }, [client, ensure]);

  const own = (crates ?? []).filter((c) => !isSpecialCrate(c));
  if (!choice || own.length === 0) return null;

  async function change(crateUuid: string) {
    setSaving(true);
    try {
      const next = await client.setRefill(crateUuid || null);
      setChoice(next);
      toast.success(
        next.crateName ? t("queue.refillSaved", { crate: next.crateName }) : t("queue.refillOff"),
      );
    } catch (e) {
      toast.error(errorText(e, t));
    }
    setSaving(false);
  }

  return (
    <div className="rounded-2xl border border-white/10 bg-white/[0.03] p-3">
      <label htmlFor={id} className="block text-sm font-semibold text-ink-50">
        {t("queue.refillLabel")}
      </label>
      <select
        id={id}
        value={choice.crateUuid ?? ""}
        disabled={saving}
        onChange={(e) => void change(e.target.value)}
        className="mt-2 block w-full rounded-lg border border-line bg-ink-900 px-3 py-2 text-sm text-ink-50"
        data-testid="refill-select"
      >
        <option value="">{t("queue.refillNone")}</option>
        {own.map((c) => (
          <option key={c.crateUuid} value={c.crateUuid}>
            {c.crateName}
          </option>
        ))}
      </select>
    </div>
  );
}
