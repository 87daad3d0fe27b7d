import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { UploadScreen } from "~/components/upload/UploadScreen";
import { pageMeta } from "~/i18n";
import { requireUser } from "~/lib/session.server";
import type { ListPage, UploadDto } from "~/lib/songs";
import { loaded, uploadApi } from "~/lib/songs.server";

export const meta = pageMeta("songUpload.title");

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  // Streamed: the form paints at once; "My uploads" follows.
  return {
    uploads: uploadApi<ListPage<UploadDto>>(args, "/songs?limit=50&offset=0", { token }).then(
      loaded,
    ),
  };
}

export default function UploadPage() {
  return <UploadScreen {...useLoaderData<typeof loader>()} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
