import {
  Ban,
  Check,
  ChevronDown,
  Heart,
  HeartOff,
  Loader2,
  UserCheck,
  UserMinus,
  UserPlus,
  X,
} from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useT } from "~/i18n";
import type { FriendState } from "~/lib/social";
import { ConfirmDialog } from "~/components/Dialog";
import { button } from "~/components/ui";

/** The relationship buttons on someone else's profile (state and calls live in SocialProfile). */
export interface ProfileActionsProps {
  name: string;
  following: boolean;
  friend: FriendState;
  blocked: boolean;
  busy: string | null;
  onFollow: () => void;
  onUnfollow: () => void;
  onInvite: () => void;
  onCancelInvite: () => void;
  onAccept: () => void;
  onReject: () => void;
  onUnfriend: () => void;
  onBlock: () => void;
  onUnblock: () => void;
}

const spin = <Loader2 aria-hidden className="size-4 animate-spin" />;

export function ProfileActions(p: ProfileActionsProps) {
  const t = useT();
  const [confirmBlock, setConfirmBlock] = useState(false);
  const [menu, setMenu] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!menu) return;
    const onDown = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenu(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [menu]);

  if (p.blocked)
    return (
      <button
        type="button"
        onClick={p.onUnblock}
        disabled={!!p.busy}
        className={button("secondary")}
        data-testid="unblock"
      >
        {p.busy === "block" ? spin : <Ban aria-hidden className="size-4" />}
        {t("social.unblock")}
      </button>
    );

  return (
    <>
      {p.following ? (
        <button
          type="button"
          onClick={p.onUnfollow}
          aria-pressed
          className={button("secondary")}
          data-testid="unfollow"
        >
          <HeartOff aria-hidden className="size-4" />
          {t("social.unfollow")}
        </button>
      ) : (
        <button
          type="button"
          onClick={p.onFollow}
          aria-pressed={false}
          className={button("primary")}
          data-testid="follow"
        >
          <Heart aria-hidden className="size-4" />
          {t("social.follow")}
        </button>
      )}

      {p.friend.kind === "none" && (
        <button
          type="button"
          onClick={p.onInvite}
          disabled={!!p.busy}
          className={button("secondary")}
          data-testid="add-friend"
        >
          {p.busy === "friend" ? spin : <UserPlus aria-hidden className="size-4" />}
          {t("social.addFriend")}
        </button>
      )}
      {p.friend.kind === "sent" && (
        <button
          type="button"
          onClick={p.onCancelInvite}
          disabled={!!p.busy}
          className={button("secondary")}
          data-testid="cancel-invitation"
        >
          {p.busy === "friend" ? spin : <X aria-hidden className="size-4" />}
          {t("social.cancelInvitation")}
        </button>
      )}
      {p.friend.kind === "received" && (
        <>
          <button
            type="button"
            onClick={p.onAccept}
            disabled={!!p.busy}
            className={button("primary")}
            data-testid="accept-friend"
          >
            {p.busy === "friend" ? spin : <Check aria-hidden className="size-4" />}
            {t("social.accept")}
          </button>
          <button
            type="button"
            onClick={p.onReject}
            disabled={!!p.busy}
            className={button("ghost")}
            data-testid="reject-friend"
          >
            {t("social.reject")}
          </button>
        </>
      )}
      {p.friend.kind === "friends" && (
        <div className="relative" ref={menuRef}>
          <button
            type="button"
            aria-haspopup="menu"
            aria-expanded={menu}
            onClick={() => setMenu(!menu)}
            className={button("secondary")}
            data-testid="friends-menu"
          >
            <UserCheck aria-hidden className="size-4 text-success" />
            {t("social.friends")}
            <ChevronDown aria-hidden className="size-4" />
          </button>
          {menu && (
            <div
              role="menu"
              className="absolute right-0 z-30 mt-2 w-48 rounded-2xl border border-white/15 bg-ink-950/95 p-1.5 shadow-2xl"
              onKeyDown={(e) => e.key === "Escape" && setMenu(false)}
            >
              <button
                type="button"
                role="menuitem"
                autoFocus
                onClick={() => {
                  setMenu(false);
                  p.onUnfriend();
                }}
                className="flex w-full items-center gap-2 rounded-xl px-3 py-2 text-left text-sm text-ink-50 hover:bg-white/10 focus-visible:bg-white/10"
                data-testid="unfriend"
              >
                <UserMinus aria-hidden className="size-4" />
                {t("social.unfriend")}
              </button>
            </div>
          )}
        </div>
      )}

      <button
        type="button"
        onClick={() => setConfirmBlock(true)}
        disabled={!!p.busy}
        className={`${button("ghost")} hover:text-danger`}
        data-testid="block"
      >
        <Ban aria-hidden className="size-4" />
        {t("social.block")}
      </button>
      <ConfirmDialog
        open={confirmBlock}
        title={t("social.blockTitle", { name: p.name })}
        confirmLabel={t("social.block")}
        danger
        onConfirm={p.onBlock}
        onClose={() => setConfirmBlock(false)}
      >
        {t("social.blockExplain")}
      </ConfirmDialog>
    </>
  );
}
