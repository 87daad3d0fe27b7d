import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ConversationsScreen } from "~/components/messages/ConversationsScreen";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { DM, isTab, type ConversationPage, type DmTab, type UnreadCounts } from "~/lib/messages";
import { requireUser } from "~/lib/session.server";

export const meta = pageMeta("messages.title");

/** My conversations in the chosen tab (`?tab=FRIENDS|OTHERS`, default all), unread counts, my setting. */
export async function loader(args: LoaderFunctionArgs) {
  const { user, token } = await requireUser(args);
  const asked = new URL(args.request.url).searchParams.get("tab");
  const tab: DmTab = isTab(asked) ? asked : "UNSET";
  const [page, counts, settings] = await Promise.all([
    callApi<ConversationPage>(args, `${DM}/conversations?tab=${tab}&limit=50`, { token }),
    callApi<UnreadCounts>(args, `${DM}/unread-count`, { token }),
    callApi<{ friendsOnly: boolean }>(args, `${DM}/settings`, { token }),
  ]);
  return {
    me: user.uuid,
    tab,
    page: page.ok ? page.data : { data: [], total: 0, limit: 50, offset: 0, tab },
    counts: counts.ok
      ? counts.data
      : { unread: 0, conversations: 0, tabs: { FRIENDS: 0, OTHERS: 0, UNSET: 0 } },
    friendsOnly: settings.ok ? settings.data.friendsOnly : false,
    failed: page.ok ? null : page.message,
  };
}

export default function MessagesPage() {
  return <ConversationsScreen {...useLoaderData<typeof loader>()} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
