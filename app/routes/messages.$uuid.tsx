import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ConversationScreen } from "~/components/messages/ConversationScreen";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { DM, DM_PAGE, type ConversationWith, type MessagePage } from "~/lib/messages";
import { requireUser } from "~/lib/session.server";

export const meta = pageMeta("messages.title");

/** The conversation with user {uuid}: who, whether I may write, and its newest page. */
export async function loader(args: LoaderFunctionArgs) {
  const { user, token } = await requireUser(args);
  const peer = args.params.uuid ?? "";
  const info = await callApi<ConversationWith>(args, `${DM}/with/${encodeURIComponent(peer)}`, {
    token,
  });
  if (!info.ok)
    throw new Response(info.message, { status: info.status === 400 ? 404 : info.status });
  let initial: MessagePage = { data: [], hasMore: false };
  if (info.data.conversationUuid) {
    const page = await callApi<MessagePage>(
      args,
      `${DM}/conversations/${info.data.conversationUuid}/messages?limit=${DM_PAGE}`,
      { token },
    );
    if (page.ok) initial = page.data;
  }
  return { me: user.uuid, peerUuid: peer, info: info.data, initial };
}

export default function ConversationPage() {
  const data = useLoaderData<typeof loader>();
  // A fresh screen per person: its polling and state belong to one conversation.
  return <ConversationScreen key={data.peerUuid} {...data} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
