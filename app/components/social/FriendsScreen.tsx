import { useRevalidator } from "@remix-run/react";
import { Check, Loader2, Search, UserMinus, UserPlus, X } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { useLocale, useT, type MessageKey } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText, isAbort } from "~/lib/errors";
import { formatDate } from "~/lib/format";
import {
  FRIENDS_PAGE,
  MAX_CONTACTS,
  SOCIAL,
  parseEmails,
  type InvitationDto,
  type PeoplePage,
} from "~/lib/social";
import type { PublicProfile } from "~/lib/types";
import type { Friend } from "~/routes/friends";
import { ConfirmDialog } from "~/components/Dialog";
import { useToast } from "~/components/Toaster";
import { PageTitle, button } from "~/components/ui";
import { PeopleList, PersonRow } from "./PeopleList";

const small = button("secondary", "sm");
const smallPrimary = button("primary", "sm");

/** Add friend, then "Invited" (or "Friends" when they had invited me: the API accepts theirs). */
function AddFriend({ person }: { person: PublicProfile }) {
  const t = useT();
  const toast = useToast();
  const [state, setState] = useState<"idle" | "busy" | "sent" | "friends">("idle");
  if (state === "sent" || state === "friends")
    return (
      <span className="text-sm font-semibold text-success" data-testid="invited">
        {t(state === "sent" ? "social.invitedShort" : "social.friends")}
      </span>
    );
  return (
    <button
      type="button"
      disabled={state === "busy"}
      className={small}
      data-testid="add-friend"
      onClick={async () => {
        setState("busy");
        try {
          const r = await apiRequest<{ friends?: boolean }>(`${SOCIAL}/friend-invitations`, {
            method: "POST",
            json: { userUuid: person.uuid },
          });
          setState(r.friends ? "friends" : "sent");
        } catch (err) {
          setState("idle");
          toast.error(
            t("social.friendFailed", { name: person.nickname, reason: errorText(err, t) }),
          );
        }
      }}
    >
      {state === "busy" ? (
        <Loader2 aria-hidden className="size-4 animate-spin" />
      ) : (
        <UserPlus aria-hidden className="size-4" />
      )}
      {t("social.addFriend")}
    </button>
  );
}

/** Find people by the start of their nickname (GET /people), 300 ms after typing stops. */
function FindPeople() {
  const t = useT();
  const id = useId();
  const [q, setQ] = useState("");
  const [found, setFound] = useState<PeoplePage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const query = q.trim();
    if (query.length < 2) {
      setFound(null);
      setError(null);
      return;
    }
    const ctl = new AbortController();
    const timer = setTimeout(async () => {
      setBusy(true);
      try {
        setFound(
          await apiRequest<PeoplePage>(`${SOCIAL}/people?q=${encodeURIComponent(query)}&take=20`, {
            signal: ctl.signal,
          }),
        );
        setError(null);
      } catch (err) {
        if (!isAbort(err)) setError(errorText(err, t));
      } finally {
        if (!ctl.signal.aborted) setBusy(false);
      }
    }, 300);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [q, t]);
  return (
    <section className="rounded-3xl border border-line bg-panel/70 p-5 sm:p-6">
      <h2 className="text-lg font-bold text-white">{t("friends.find")}</h2>
      <label htmlFor={id} className="mt-1 block text-sm text-ink-300">
        {t("friends.findHint")}
      </label>
      <div className="relative mt-3">
        <Search aria-hidden className="absolute left-3.5 top-3 size-5 text-ink-300" />
        <input
          id={id}
          type="search"
          value={q}
          maxLength={30}
          onChange={(e) => setQ(e.target.value)}
          placeholder={t("friends.findPlaceholder")}
          className="block w-full rounded-xl border border-line bg-ink-900/70 py-2.5 pl-11 pr-10 text-base text-ink-50 placeholder:text-ink-300 focus:border-brand-light"
          data-testid="find-people"
        />
        {busy && (
          <Loader2
            aria-hidden
            className="absolute right-3.5 top-3 size-5 animate-spin text-ink-300"
          />
        )}
      </div>
      {error && <p className="mt-3 text-sm text-danger">{error}</p>}
      {found && (
        <div aria-live="polite">
          {found.data.length ? (
            <ul className="mt-4 grid gap-2" data-testid="find-results">
              {found.data.map((p) => (
                <PersonRow key={p.uuid} person={p} action={<AddFriend person={p} />} />
              ))}
            </ul>
          ) : (
            <p className="mt-3 text-ink-300">{t("friends.noneFound")}</p>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * Contacts matching: pasted addresses go to the contact book (the server keeps only keyed
 * hashes), then the people among them who are not yet friends are listed.
 */
function ContactsMatch() {
  const t = useT();
  const toast = useToast();
  const id = useId();
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [matches, setMatches] = useState<PeoplePage | null>(null);
  const parsed = parseEmails(text);
  const submit = async () => {
    if (!parsed.emails.length) return;
    setBusy(true);
    try {
      await apiRequest(`${SOCIAL}/user-book-contact`, {
        method: "POST",
        json: { contacts: parsed.emails.map((email) => ({ email })) },
      });
      setMatches(
        await apiRequest<PeoplePage>(
          `${SOCIAL}/user-book-contact/matching-contacts-friends?take=50`,
          { method: "POST" },
        ),
      );
    } catch (err) {
      toast.error(t("friends.contactsFailed", { reason: errorText(err, t) }), submit);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="rounded-3xl border border-line bg-panel/70 p-5 sm:p-6">
      <h2 className="text-lg font-bold text-white">{t("friends.contacts")}</h2>
      <p className="mt-1 text-sm text-ink-300">{t("friends.contactsPrivacy")}</p>
      <label htmlFor={id} className="mt-3 block text-sm font-semibold text-ink-100">
        {t("friends.contactsLabel", { max: MAX_CONTACTS })}
      </label>
      <textarea
        id={id}
        rows={4}
        value={text}
        maxLength={MAX_CONTACTS * 80}
        onChange={(e) => setText(e.target.value)}
        placeholder={"ana@example.com\nleo@example.com, kai@example.com"}
        className="mt-2 block w-full rounded-xl border border-line bg-ink-900/70 px-3.5 py-2.5 text-base text-ink-50 placeholder:text-ink-300 focus:border-brand-light"
        data-testid="contacts-input"
      />
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={submit}
          disabled={busy || !parsed.emails.length}
          className={smallPrimary}
          data-testid="contacts-submit"
        >
          {busy && <Loader2 aria-hidden className="size-4 animate-spin" />}
          {t("friends.contactsSubmit", { count: parsed.emails.length })}
        </button>
        {parsed.over && (
          <span className="text-sm text-focus">
            {t("friends.contactsOver", { max: MAX_CONTACTS })}
          </span>
        )}
      </div>
      {matches && (
        <div aria-live="polite">
          {matches.data.length ? (
            <ul className="mt-4 grid gap-2" data-testid="contact-matches">
              {matches.data.map((p) => (
                <PersonRow key={p.uuid} person={p} action={<AddFriend person={p} />} />
              ))}
            </ul>
          ) : (
            <p className="mt-3 text-ink-300">{t("friends.contactsNone")}</p>
          )}
        </div>
      )}
    </section>
  );
}

export function FriendsScreen({
  me,
  incoming,
  outgoing,
  friends,
  failed,
}: {
  me: string;
  incoming: PeoplePage<InvitationDto>;
  outgoing: PeoplePage<InvitationDto>;
  friends: PeoplePage<Friend>;
  failed: boolean;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const revalidator = useRevalidator();
  const [busy, setBusy] = useState<string | null>(null);
  const [unfriending, setUnfriending] = useState<Friend | null>(null);

  const run = async (
    key: string,
    call: () => Promise<unknown>,
    done: string,
    fail: MessageKey,
    name: string,
  ) => {
    setBusy(key);
    try {
      await call();
      toast.success(done);
      revalidator.revalidate();
    } catch (err) {
      toast.error(t(fail, { name, reason: errorText(err, t) }));
    } finally {
      setBusy(null);
    }
  };
  const answer = (inv: InvitationDto, status: "accepted" | "rejected") => {
    const name = inv.from?.nickname ?? "";
    return run(
      inv.uuid,
      () =>
        apiRequest(`${SOCIAL}/friend-invitations/handle-friend`, {
          method: "POST",
          json: { invitationUuid: inv.uuid, status },
        }),
      t(status === "accepted" ? "social.nowFriends" : "friends.rejected", { name }),
      "social.friendFailed",
      name,
    );
  };
  const load =
    <T,>(path: string) =>
    (skip: number) =>
      apiRequest<PeoplePage<T>>(`${SOCIAL}${path}?take=${FRIENDS_PAGE}&skip=${skip}`);
  const invitationPeople = (page: PeoplePage<InvitationDto>, side: "from" | "to") => ({
    ...page,
    data: page.data.flatMap((i) => (i[side] ? [{ ...i[side]!, invitation: i }] : [])),
  });

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-10">
      <PageTitle>{t("friends.heading")}</PageTitle>
      <p className="mt-2 text-ink-200">{t("friends.lede")}</p>
      {failed && (
        <p
          role="alert"
          className="mt-4 rounded-2xl border border-danger/40 bg-danger/10 px-4 py-3 text-sm text-ink-50"
        >
          {t("friends.loadFailed")}
        </p>
      )}
      <div className="mt-8 grid items-start gap-5 lg:grid-cols-[1.3fr_1fr]">
        <div className="space-y-5">
          <PeopleList
            title={t("friends.incoming")}
            page={invitationPeople(incoming, "from")}
            load={(skip) =>
              load<InvitationDto>("/friend-invitations/user-invitations-for")(skip).then((p) =>
                invitationPeople(p, "from"),
              )
            }
            empty={t("friends.noIncoming")}
            note={(p) =>
              t("friends.invitedOn", { date: formatDate(p.invitation.createdAt, locale) })
            }
            action={(p) => (
              <>
                <button
                  type="button"
                  disabled={busy === p.invitation.uuid}
                  onClick={() => answer(p.invitation, "accepted")}
                  className={smallPrimary}
                  data-testid="accept-invitation"
                >
                  <Check aria-hidden className="size-4" />
                  {t("social.accept")}
                </button>
                <button
                  type="button"
                  disabled={busy === p.invitation.uuid}
                  onClick={() => answer(p.invitation, "rejected")}
                  className={button("ghost", "compact")}
                  aria-label={t("friends.rejectFrom", { name: p.nickname })}
                  title={t("social.reject")}
                  data-testid="reject-invitation"
                >
                  <X aria-hidden className="size-4" />
                </button>
              </>
            )}
            columns={1}
            testId="incoming"
          />
          <PeopleList
            title={t("friends.friends")}
            page={friends}
            load={load<Friend>(`/friends/list/${encodeURIComponent(me)}`)}
            empty={t("friends.noFriends")}
            note={(p) =>
              p.friendsSince
                ? t("friends.since", { date: formatDate(p.friendsSince, locale) })
                : null
            }
            action={(p) => (
              <button
                type="button"
                disabled={busy === p.uuid}
                onClick={() => setUnfriending(p)}
                className={button("ghost", "compact")}
                aria-label={t("friends.unfriendName", { name: p.nickname })}
                title={t("social.unfriend")}
                data-testid="unfriend"
              >
                <UserMinus aria-hidden className="size-4" />
              </button>
            )}
            columns={1}
            testId="friends"
          />
          <PeopleList
            title={t("friends.outgoing")}
            page={invitationPeople(outgoing, "to")}
            load={(skip) =>
              load<InvitationDto>("/friend-invitations/user-invitations-from")(skip).then((p) =>
                invitationPeople(p, "to"),
              )
            }
            empty={t("friends.noOutgoing")}
            note={(p) =>
              t("friends.invitedOn", { date: formatDate(p.invitation.createdAt, locale) })
            }
            action={(p) => (
              <button
                type="button"
                disabled={busy === p.invitation.uuid}
                onClick={() =>
                  run(
                    p.invitation.uuid,
                    () =>
                      apiRequest(`${SOCIAL}/friend-invitations/${p.invitation.uuid}`, {
                        method: "DELETE",
                      }),
                    t("friends.withdrawn", { name: p.nickname }),
                    "social.friendFailed",
                    p.nickname,
                  )
                }
                className={small}
                data-testid="withdraw-invitation"
              >
                {t("friends.withdraw")}
              </button>
            )}
            columns={1}
            testId="outgoing"
          />
        </div>
        <div className="space-y-5">
          <FindPeople />
          <ContactsMatch />
        </div>
      </div>
      <ConfirmDialog
        open={!!unfriending}
        title={t("friends.unfriendTitle", { name: unfriending?.nickname ?? "" })}
        confirmLabel={t("social.unfriend")}
        danger
        onConfirm={() => {
          const p = unfriending;
          if (!p) return;
          void run(
            p.uuid,
            () =>
              apiRequest(`${SOCIAL}/friends/${encodeURIComponent(p.uuid)}`, { method: "DELETE" }),
            t("friends.unfriended", { name: p.nickname }),
            "social.friendFailed",
            p.nickname,
          );
        }}
        onClose={() => setUnfriending(null)}
      >
        {t("friends.unfriendExplain")}
      </ConfirmDialog>
    </div>
  );
}
