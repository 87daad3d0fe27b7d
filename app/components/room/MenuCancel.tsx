import { useT } from "~/i18n";

/** "Cancel" in a moderation menu's confirm step (give the room, kick): back to the actions. */
export function MenuCancel({ onClick }: { onClick: () => void }) {
  const t = useT();
  return (
    <button
      type="button"
      onClick={onClick}
      className="rounded-lg px-2.5 py-1.5 text-sm font-semibold text-ink-100 hover:bg-white/10"
    >
      {t("room.mod.cancel")}
    </button>
  );
}
