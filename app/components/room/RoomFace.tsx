import { Ban, DoorOpen } from "lucide-react";

/** A full-page notice in the room's colours: cannot join, kicked or banned. */
export function RoomFace({
  title,
  body,
  backdrop,
  children,
  testId,
  quote,
  kind,
}: {
  title: string;
  body: string;
  backdrop: string;
  children?: React.ReactNode;
  testId?: string;
  /** A moderator's own words (the kick reason), shown as a quote. */
  quote?: string | null;
  kind?: string;
}) {
  const Icon = kind === "banned" ? Ban : kind ? DoorOpen : null;
  return (
    <div
      className="grid min-h-[70dvh] place-items-center px-4"
      style={{ background: backdrop }}
      data-testid={testId}
      data-kind={kind}
    >
      <div className="max-w-md rounded-3xl border border-white/15 bg-black/55 p-8 text-center">
        {Icon && (
          <span className="mx-auto mb-4 grid size-14 place-items-center rounded-full bg-white/10 text-white">
            <Icon aria-hidden className="size-7" />
          </span>
        )}
        <h1 className="text-2xl font-extrabold text-white" data-testid="room-face-title">
          {title}
        </h1>
        <p className="mt-3 text-ink-100">{body}</p>
        {quote && (
          <blockquote
            className="mt-3 break-words rounded-xl border-l-4 border-white/40 bg-white/10 px-4 py-3 text-left text-lg font-semibold text-white"
            data-testid="kick-reason-text"
          >
            {quote}
          </blockquote>
        )}
        <div className="mt-6">{children}</div>
      </div>
    </div>
  );
}
