import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ModerationScreen } from "~/components/moderation/ModerationScreen";
import { isLocale, translate } from "~/i18n";
import { adminFailure, requireModerator } from "~/lib/admin.server";
import { userApi } from "~/lib/api.server";
import {
  MODERATION_PAGE,
  type CursorPage,
  type ModerationActionDto,
  type ModerationComment,
  type ModerationState,
} from "~/lib/moderation";
import { actorNames } from "~/lib/moderation.server";

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const root = matches.find((m) => m.id === "root")?.data as { locale?: string } | undefined;
  const locale = isLocale(root?.locale) ? root.locale : "en";
  return [
    {
      title: data
        ? translate(locale, "mod.pageTitle", { name: data.state.user.nickname })
        : translate(locale, "mod.title"),
    },
  ];
};

/**
 * One account's moderation page (issue 15) for moderators and above: its state, what this
 * moderator may do (GET /users/{id}/moderation), the history and the notes, first pages.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireModerator(args);
  const id = encodeURIComponent(args.params.uuid ?? "");
  const token = session.token;
  const state = await userApi<ModerationState>(args, `/users/${id}/moderation`, { token });
  if (!state.ok) adminFailure(args.request, state);
  const uuid = encodeURIComponent(state.data.user.uuid);
  const [history, comments] = await Promise.all([
    userApi<CursorPage<ModerationActionDto>>(
      args,
      `/users/${uuid}/moderation-history?limit=${MODERATION_PAGE}`,
      { token },
    ),
    userApi<CursorPage<ModerationComment>>(
      args,
      `/moderation-comments/${uuid}?limit=${MODERATION_PAGE}`,
      { token },
    ),
  ]);
  const historyPage = history.ok ? history.data : { data: [], nextBefore: null };
  return {
    state: state.data,
    history: historyPage,
    comments: comments.ok ? comments.data : { data: [], nextBefore: null },
    names: await actorNames(
      args,
      historyPage.data.map((a) => a.actorUuid),
      token,
    ),
    isAdmin: session.isAdmin,
  };
}

export default function ModerationPage() {
  const data = useLoaderData<typeof loader>();
  return <ModerationScreen {...data} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
