import { Gift } from "lucide-react";
import { useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import type { ChatMessage } from "../../../shared/protocol";
import { Avatar } from "../Avatar";

/**
 * A consumable someone bought and sent into the room (a chat line of type "consumable"):
 * who sent what, with its picture. `cover` shows the picture across the line, `small` as
 * a sticker beside the words.
 */
export function ConsumableMessage({
  message: m,
  profiles,
}: {
  message: ChatMessage;
  profiles: Record<string, RoomProfile>;
}) {
  const t = useT();
  const c = m.consumable;
  const name =
    m.userName ?? (m.userUuid ? profiles[m.userUuid]?.nickname : null) ?? t("room.listener");
  const what = c?.name ?? m.message ?? "";
  const picture = c?.imageUrl ? (
    <img
      src={c.imageUrl}
      alt={what}
      className={
        c.displayType === "cover"
          ? "mt-2 max-h-48 w-full rounded-xl object-cover"
          : "size-14 shrink-0 rounded-lg object-contain"
      }
    />
  ) : (
    <span className="grid size-14 shrink-0 place-items-center rounded-lg bg-amber-300/15">
      <Gift aria-hidden className="size-7 text-amber-300" />
    </span>
  );
  return (
    <li
      className="rounded-2xl border border-amber-300/30 bg-gradient-to-r from-amber-300/10 via-fuchsia-500/10 to-brand/10 p-3"
      data-testid="chat-consumable"
    >
      <div className="flex items-center gap-3">
        {c?.displayType === "cover" ? (
          <Avatar
            name={name}
            src={m.userUuid ? profiles[m.userUuid]?.profilePicture : null}
            color={m.color}
            size={32}
          />
        ) : (
          picture
        )}
        <p className="min-w-0 text-sm text-ink-50">{t("shop.chatSent", { name, item: what })}</p>
      </div>
      {c?.displayType === "cover" && picture}
    </li>
  );
}
