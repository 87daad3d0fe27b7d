import { Link } from "@remix-run/react";
import { Loader2 } from "lucide-react";
import { useState, type ReactNode } from "react";
import { useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import type { PeoplePage } from "~/lib/social";
import type { PublicProfile } from "~/lib/types";
import { Avatar } from "~/components/Avatar";
import { button } from "~/components/ui";
import { useToast } from "~/components/Toaster";

/** One person: avatar and name linking to their profile, and an optional action beside. */
export function PersonRow({
  person,
  action,
  note,
}: {
  person: PublicProfile;
  action?: ReactNode;
  note?: ReactNode;
}) {
  return (
    <li
      className="flex min-w-0 items-center gap-3 rounded-2xl border border-line bg-ink-900/50 p-2.5 pr-3"
      data-testid="person"
      data-uuid={person.uuid}
    >
      <Link
        to={`/profile/${person.uuid}`}
        className="flex min-w-0 flex-1 items-center gap-3 rounded-xl focus-visible:outline-2 focus-visible:outline-white"
      >
        <Avatar name={person.nickname} src={person.profilePicture} color={person.color} size={40} />
        <span className="min-w-0">
          <span className="block truncate font-semibold text-white" data-testid="person-name">
            {person.nickname}
          </span>
          {note && <span className="block truncate text-xs text-ink-300">{note}</span>}
        </span>
      </Link>
      {action && <span className="flex shrink-0 items-center gap-1.5">{action}</span>}
    </li>
  );
}

/**
 * A paged list of people: the first page comes from the loader, "Show more" appends the
 * next one from the API (12 a page on profiles, seed 001).
 */
export function PeopleList<P extends PublicProfile>({
  title,
  page,
  load,
  empty,
  action,
  note,
  testId,
  columns = 2,
}: {
  /** Two columns from small screens up (profiles); one where rows carry buttons and notes. */
  columns?: 1 | 2;
  title: string;
  page: PeoplePage<P>;
  load: (skip: number) => Promise<PeoplePage<P>>;
  empty: string;
  action?: (p: P) => ReactNode;
  note?: (p: P) => ReactNode;
  testId: string;
}) {
  const t = useT();
  const toast = useToast();
  const [people, setPeople] = useState(page.data);
  const [total, setTotal] = useState(page.total);
  const [busy, setBusy] = useState(false);
  // A new first page (after an action reloads the route) replaces what was shown.
  const [seen, setSeen] = useState(page);
  if (seen !== page) {
    setSeen(page);
    setPeople(page.data);
    setTotal(page.total);
  }
  const more = async () => {
    setBusy(true);
    try {
      const next = await load(people.length);
      const have = new Set(people.map((p) => p.uuid));
      setPeople([...people, ...next.data.filter((p) => !have.has(p.uuid))]);
      setTotal(next.total);
    } catch (err) {
      toast.error(errorText(err, t), more);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="rounded-3xl border border-line bg-panel/70 p-5 sm:p-6" data-testid={testId}>
      <h2 className="flex items-baseline gap-2 text-lg font-bold text-white">
        {title}
        <span className="text-sm font-semibold text-ink-300" data-testid={`${testId}-total`}>
          {total}
        </span>
      </h2>
      {people.length ? (
        <ul className={`mt-4 grid gap-2 ${columns === 2 ? "sm:grid-cols-2" : ""}`}>
          {people.map((p) => (
            <PersonRow key={p.uuid} person={p} action={action?.(p)} note={note?.(p)} />
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-ink-300">{empty}</p>
      )}
      {people.length < total && (
        <button
          type="button"
          onClick={more}
          disabled={busy}
          className={`${button("secondary", "sm")} mt-4`}
          data-testid={`${testId}-more`}
        >
          {busy && <Loader2 aria-hidden className="size-4 animate-spin" />}
          {t("social.showMore", { count: total - people.length })}
        </button>
      )}
    </section>
  );
}
