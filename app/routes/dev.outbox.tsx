import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { desc, sql } from "drizzle-orm";
import { db } from "../../workers/db/client";
import { devOutbox } from "../../workers/db/schema";
import { pageMeta } from "~/i18n";
import { OutboxScreen } from "~/components/dev/OutboxScreen";

export const meta = pageMeta("outbox.title");

const LIMIT = 200;

/** The messages the app "sent" locally, newest first. A 404 in production. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  if (context.env.ENVIRONMENT !== "development") throw data({ message: null }, { status: 404 });
  const to = (new URL(request.url).searchParams.get("to") ?? "").trim();
  const rows = await db(context.env)
    .select({
      id: devOutbox.id,
      channel: devOutbox.channel,
      to: devOutbox.to,
      subject: devOutbox.subject,
      text: devOutbox.text,
      createdAt: devOutbox.createdAt,
    })
    .from(devOutbox)
    .where(to ? sql`lower(${devOutbox.to}) = ${to.toLowerCase()}` : undefined)
    .orderBy(desc(devOutbox.createdAt), desc(devOutbox.id))
    .limit(LIMIT);
  return { to, messages: rows };
}

export default function DevOutbox() {
  return <OutboxScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
