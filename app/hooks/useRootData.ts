import { useRouteLoaderData } from "@remix-run/react";
import type { loader } from "~/root";

/** The root loader's data (user, token, locale) from any component; undefined on a crash page. */
export const useRootData = () => useRouteLoaderData<typeof loader>("root");
