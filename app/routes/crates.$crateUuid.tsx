import type { LoaderFunctionArgs, MetaArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CrateView } from "~/components/crates/CrateView";
import { pageMeta } from "~/i18n";
import { loadCrateView } from "~/lib/songs.server";

export function meta(args: MetaArgs<typeof loader>) {
  const base = pageMeta("crate.title")(args);
  const crate = args.data?.crate;
  return crate?.ok
    ? [{ title: `${crate.data.crateName} · ${String(base[0].title).split(" · ").pop()}` }]
    : base;
}

export async function loader(args: LoaderFunctionArgs) {
  return loadCrateView(args, args.params.crateUuid ?? "");
}

export default function CratePage() {
  const d = useLoaderData<typeof loader>();
  return (
    <CrateView
      key={d.id}
      id={d.id}
      kind="crate"
      userUuid={d.userUuid}
      crate={d.crate}
      songs={d.songs}
    />
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
