import { Link } from "@remix-run/react";
import {
  Ban,
  Crown,
  Gift,
  UserRound,
  MicOff,
  Shield,
  ShieldOff,
  SkipForward,
  UserMinus,
  UserX,
  Volume2,
} from "lucide-react";
import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { activeRoomRoles, ROOM_SERVICE } from "~/lib/rooms";
import { SOCIAL } from "~/lib/social";
import type { RoomConnection } from "~/hooks/useRoom";
import { useToast } from "../Toaster";
import { MenuItem } from "./MenuItem";
import { MenuCancel } from "./MenuCancel";
import { ShopDrawer } from "../shop/SendSomething";

/** Chat mutes last this long (issue 4, "Mute chat 15 min"). */
export const MUTE_MS = 15 * 60_000;

export interface ModTarget {
  uuid: string;
  name: string;
  /** Whether the user sits in a DJ seat now. */
  dj: boolean;
  /** Whether the user's song plays now. */
  playing: boolean;
  /** Whether the user is in the room now (only they can be kicked); default true. */
  present?: boolean;
  /** Whether the user is a guest (a guest has no account, so cannot be given the room). */
  guest?: boolean;
}

/**
 * A user's avatar as a button that opens their menu: "View profile" and "Block" for any
 * signed-in viewer (issue 14), and the moderator's actions (issue 4) for those who may
 * moderate. Arrow keys move, Escape closes and focus returns to the avatar. Socket actions
 * answer through the room's `error` message (the page toasts it); REST actions toast here.
 */
export function UserMenu({
  target,
  conn,
  roomUuid,
  manage,
  moderate = true,
  giveRoom = false,
  children,
  className,
  testId,
}: {
  target: ModTarget;
  conn: RoomConnection;
  roomUuid: string;
  manage: boolean;
  /** Whether the viewer may moderate here; without it the menu has the profile and Block only. */
  moderate?: boolean;
  /** The room's owner or an admin: may hand the room to this user (PUT change-owner). */
  giveRoom?: boolean;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  const t = useT();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [kicking, setKicking] = useState(false);
  // The ownership hand-over asks once more inside the menu: it cannot be undone by the giver.
  const [giving, setGiving] = useState(false);
  // Blocking asks once more inside the menu, saying what a block does.
  const [blocking, setBlocking] = useState(false);
  // "Send a gift" opens the room's shop (a gift is bought for and played in the room).
  const [gifting, setGifting] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  // Open toward the side with room (a 15 rem menu off a left- or right-edge avatar).
  const [align, setAlign] = useState<"left" | "right">("left");
  // ...and upward when the avatar sits low (the player bar covers the bottom of the page).
  const [up, setUp] = useState(false);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const id = useId();
  const held = activeRoomRoles(conn.state?.settings, target.uuid);

  const close = (refocus = true) => {
    setOpen(false);
    setKicking(false);
    setGiving(false);
    setBlocking(false);
    setReason("");
    if (refocus) triggerRef.current?.focus();
  };

  useEffect(() => {
    if (!open) return;
    menuRef.current?.querySelector<HTMLElement>("[role=menuitem], input")?.focus();
    const onDown = (e: MouseEvent) => {
      if (
        !menuRef.current?.contains(e.target as Node) &&
        !triggerRef.current?.contains(e.target as Node)
      )
        close(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open, kicking, giving, blocking]);

  // Where the open menu fits whole (issue 20: nothing may hide "Kick…"): below the avatar if
  // the space above the fixed player bar takes it, else above (below the sticky header), else
  // the page scrolled just enough (down, or up at the end of the page). Measured, since the items vary by viewer.
  useLayoutEffect(() => {
    const menu = menuRef.current;
    const r = triggerRef.current?.getBoundingClientRect();
    if (!open || !menu || !r) return;
    const h = menu.offsetHeight + 8;
    const bar = document.querySelector<HTMLElement>('[data-testid="player"]');
    const barTop = bar && !bar.hidden ? bar.getBoundingClientRect().top : innerHeight;
    const headerBottom = document.querySelector("header")?.getBoundingClientRect().bottom ?? 0;
    const below = Math.min(innerHeight, barTop) - r.bottom;
    const above = r.top - Math.max(0, headerBottom);
    const canDown = document.documentElement.scrollHeight - innerHeight - scrollY;
    if (h <= below) setUp(false);
    else if (h <= above) setUp(true);
    else if (h - below <= canDown || h - above > scrollY) {
      setUp(false);
      window.scrollBy({ top: h - below, behavior: "instant" });
    } else {
      setUp(true);
      window.scrollBy({ top: above - h, behavior: "instant" });
    }
  }, [open, kicking, giving, blocking]);

  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close();
      return;
    }
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp" && e.key !== "Home" && e.key !== "End") return;
    const items = [...(menuRef.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    if (!items.length) return;
    e.preventDefault();
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next =
      e.key === "Home"
        ? 0
        : e.key === "End"
          ? items.length - 1
          : (at + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
    items[next]?.focus();
  };

  const socket = (msg: Parameters<RoomConnection["send"]>[0], done: string) => {
    if (conn.send(msg)) toast.success(done);
    else toast.error(t("room.mod.offline"));
    close();
  };

  const rest = async (method: "POST" | "DELETE", json: Record<string, unknown>, done: string) => {
    setBusy(true);
    try {
      await apiRequest(`${ROOM_SERVICE}/roomUserRoles/${encodeURIComponent(roomUuid)}`, {
        method,
        json: { userUuid: target.uuid, ...json },
      });
      toast.success(done);
      close();
    } catch (err) {
      toast.error(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  const changeOwner = async () => {
    setBusy(true);
    try {
      await apiRequest(
        `${ROOM_SERVICE}/roomUserRoles/change-owner/${encodeURIComponent(roomUuid)}`,
        { method: "PUT", json: { newOwnerUuid: target.uuid } },
      );
      toast.success(t("room.mod.ownerChanged", { name: target.name }));
      close();
    } catch (err) {
      toast.error(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  const block = async () => {
    setBusy(true);
    try {
      await apiRequest(`${SOCIAL}/blocked-users`, {
        method: "POST",
        json: { userUuid: target.uuid },
      });
      toast.success(t("social.blocked", { name: target.name }));
      close();
    } catch (err) {
      toast.error(t("social.blockFailed", { name: target.name, reason: errorText(err, t) }));
    } finally {
      setBusy(false);
    }
  };

  const name = target.name;

  return (
    <span className="relative inline-flex">
      <button
        ref={triggerRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-label={t("room.mod.menuFor", { name })}
        onClick={() => {
          if (open) return close();
          const r = triggerRef.current?.getBoundingClientRect();
          setAlign(r && r.left + 248 > window.innerWidth ? "right" : "left");
          setUp(!!r && r.bottom + 320 > window.innerHeight && r.top > 320);
          setOpen(true);
        }}
        className={`rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white ${className ?? ""}`}
        data-testid={testId}
        data-user={target.uuid}
      >
        {children}
      </button>
      {open && (
        <div
          ref={menuRef}
          id={id}
          role="menu"
          aria-label={t("room.mod.menuFor", { name })}
          onKeyDown={onKey}
          className={`absolute z-40 w-60 ${up ? "bottom-full mb-2" : "top-full mt-2"} max-w-[calc(100vw-1rem)] rounded-2xl ${align === "left" ? "left-0" : "right-0"} border border-white/15 bg-ink-950/95 p-1.5 text-left shadow-2xl backdrop-blur`}
          data-testid="mod-menu"
        >
          <p className="truncate px-3 pb-1 pt-1.5 text-xs font-semibold uppercase tracking-wide text-ink-200">
            {name}
          </p>
          {blocking ? (
            <div className="space-y-2 p-2" data-testid="block-confirm-box">
              <p className="text-sm font-semibold text-white">{t("social.blockTitle", { name })}</p>
              <p className="text-sm text-ink-200">{t("social.blockExplain")}</p>
              <div className="flex justify-end gap-2">
                <MenuCancel onClick={() => setBlocking(false)} />
                <button
                  type="button"
                  disabled={busy}
                  onClick={block}
                  className="rounded-lg bg-danger px-2.5 py-1.5 text-sm font-bold text-ink-950 hover:brightness-110 disabled:opacity-60"
                  data-testid="block-confirm"
                >
                  {t("social.block")}
                </button>
              </div>
            </div>
          ) : giving ? (
            <div className="space-y-2 p-2" data-testid="give-room">
              <p className="text-sm text-ink-50">{t("room.mod.makeOwnerConfirm", { name })}</p>
              <div className="flex justify-end gap-2">
                <MenuCancel onClick={() => setGiving(false)} />
                <button
                  type="button"
                  disabled={busy}
                  onClick={changeOwner}
                  className="rounded-lg bg-focus px-2.5 py-1.5 text-sm font-bold text-ink-950 hover:brightness-110 disabled:opacity-60"
                  data-testid="give-room-confirm"
                >
                  {t("room.mod.giveRoom")}
                </button>
              </div>
            </div>
          ) : kicking ? (
            <form
              className="space-y-2 p-2"
              onSubmit={(e) => {
                e.preventDefault();
                const r = reason.trim();
                socket(
                  { action: "kickUser", userUuid: target.uuid, ...(r ? { reason: r } : {}) },
                  t("room.mod.kicked", { name }),
                );
              }}
            >
              <label className="block text-xs font-semibold text-ink-100" htmlFor={`${id}-reason`}>
                {t("room.mod.kickReason")}
              </label>
              <input
                id={`${id}-reason`}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                maxLength={300}
                placeholder={t("room.mod.kickReasonPlaceholder")}
                className="block w-full rounded-lg border border-line bg-ink-900 px-2.5 py-1.5 text-sm text-ink-50 placeholder:text-ink-300"
                data-testid="kick-reason"
              />
              <div className="flex justify-end gap-2">
                <MenuCancel onClick={() => setKicking(false)} />
                <button
                  type="submit"
                  className="rounded-lg bg-danger px-2.5 py-1.5 text-sm font-bold text-white hover:brightness-110"
                  data-testid="kick-confirm"
                >
                  {t("room.mod.kick")}
                </button>
              </div>
            </form>
          ) : (
            <>
              {!target.guest && (
                <Link
                  to={`/profile/${encodeURIComponent(target.uuid)}`}
                  role="menuitem"
                  className="flex w-full items-center gap-2 rounded-lg px-3 py-2 text-left text-sm font-medium text-ink-50 hover:bg-white/10 focus:bg-white/15 focus:outline-none"
                  data-testid="menu-view-profile"
                >
                  <UserRound aria-hidden className="size-4" />
                  {t("social.viewProfile")}
                </Link>
              )}
              {!target.guest && (
                <MenuItem
                  icon={Gift}
                  label={t("room.sendGift")}
                  onClick={() => {
                    close(false);
                    setGifting(true);
                  }}
                  testId="menu-send-gift"
                />
              )}
              {!target.guest && (
                <MenuItem
                  icon={Ban}
                  label={t("social.blockEllipsis")}
                  onClick={() => setBlocking(true)}
                  testId="menu-block"
                  disabled={busy}
                  danger
                />
              )}
              {moderate && target.dj && (
                <MenuItem
                  icon={UserMinus}
                  label={t("room.mod.removeDj")}
                  onClick={() =>
                    socket(
                      { action: "removeDj", djUuid: target.uuid },
                      t("room.mod.removedDj", { name }),
                    )
                  }
                  testId="mod-remove-dj"
                />
              )}
              {moderate && target.playing && (
                <MenuItem
                  icon={SkipForward}
                  label={t("room.mod.skip")}
                  onClick={() => socket({ action: "skipSong" }, t("room.mod.skipped"))}
                  testId="mod-skip"
                />
              )}
              {moderate && target.present !== false && (
                <MenuItem
                  icon={UserX}
                  label={t("room.mod.kickEllipsis")}
                  onClick={() => setKicking(true)}
                  testId="mod-kick"
                />
              )}
              {!moderate ? null : held.has("chatDisabled") ? (
                <MenuItem
                  icon={Volume2}
                  label={t("room.mod.unmute")}
                  onClick={() =>
                    rest("DELETE", { role: "chatDisabled" }, t("room.mod.unmuted", { name }))
                  }
                  testId="mod-unmute"
                  disabled={busy}
                />
              ) : (
                <MenuItem
                  icon={MicOff}
                  label={t("room.mod.mute")}
                  onClick={() =>
                    rest(
                      "POST",
                      { role: "chatDisabled", expirationTime: Date.now() + MUTE_MS },
                      t("room.mod.muted", { name }),
                    )
                  }
                  testId="mod-mute"
                  disabled={busy}
                />
              )}
              {!moderate ? null : held.has("banned") ? (
                <MenuItem
                  icon={Ban}
                  label={t("room.mod.unban")}
                  onClick={() =>
                    rest("DELETE", { role: "banned" }, t("room.mod.unbanned", { name }))
                  }
                  testId="mod-unban"
                  disabled={busy}
                />
              ) : (
                <MenuItem
                  icon={Ban}
                  label={t("room.mod.ban")}
                  onClick={() => rest("POST", { role: "banned" }, t("room.mod.banned", { name }))}
                  testId="mod-ban"
                  disabled={busy}
                  danger
                />
              )}
              {moderate &&
                manage &&
                (held.has("moderator") ? (
                  <MenuItem
                    icon={ShieldOff}
                    label={t("room.mod.removeModerator")}
                    onClick={() =>
                      rest("DELETE", { role: "moderator" }, t("room.mod.unmodded", { name }))
                    }
                    testId="mod-unmod"
                    disabled={busy}
                  />
                ) : (
                  <MenuItem
                    icon={Shield}
                    label={t("room.mod.makeModerator")}
                    onClick={() =>
                      rest("POST", { role: "moderator" }, t("room.mod.modded", { name }))
                    }
                    testId="mod-mod"
                    disabled={busy}
                  />
                ))}
              {moderate && giveRoom && !target.guest && (
                <MenuItem
                  icon={Crown}
                  label={t("room.mod.makeOwner")}
                  onClick={() => setGiving(true)}
                  testId="mod-make-owner"
                  disabled={busy}
                />
              )}
            </>
          )}
        </div>
      )}
      {gifting && <ShopDrawer roomUuid={roomUuid} open onClose={() => setGifting(false)} />}
    </span>
  );
}
