import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { callApi, type ApiOptions, type ApiResult } from "./api.server";
import { clearSessionCookie, loginRedirect, requireUser } from "./session.server";
import {
  CRATE_PAGE,
  PLAYLIST_SERVICE,
  UPLOAD_SERVICE,
  type CrateDto,
  type CrateSongDto,
  type ListPage,
  type SpecialCrate,
} from "./songs";

type Args = Pick<LoaderFunctionArgs, "request" | "context">;

export const playlistApi = <R>(args: Args, path: string, opts?: ApiOptions) =>
  callApi<R>(args, `${PLAYLIST_SERVICE}${path}`, opts);
export const uploadApi = <R>(args: Args, path: string, opts?: ApiOptions) =>
  callApi<R>(args, `${UPLOAD_SERVICE}${path}`, opts);

/** A failed call as the serialisable error a page shows (with a retry). */
export type LoadError = { ok: false; status: number; message: string; generic: boolean };
export type Loaded<R> = { ok: true; data: R } | LoadError;

/** An ApiResult without the extra fields, ready to stream to the page. */
export function loaded<R>(res: ApiResult<R>): Loaded<R> {
  return res.ok
    ? { ok: true, data: res.data }
    : { ok: false, status: res.status, message: res.message, generic: res.generic };
}

/**
 * A crate page's data: the crate now (a 404 is a real 404 page), its first page of songs
 * streamed after (the page shows skeleton rows until they arrive).
 */
export async function loadCrateView(args: LoaderFunctionArgs, id: string | SpecialCrate) {
  const { token, user } = await requireUser(args);
  const songs = playlistApi<ListPage<CrateSongDto>>(
    args,
    `/crate/${encodeURIComponent(id)}/songs?limit=${CRATE_PAGE}&offset=0`,
    { token },
  ).then(loaded);
  const crate = await playlistApi<CrateDto>(args, `/crate/${encodeURIComponent(id)}`, { token });
  if (!crate.ok) {
    if (crate.status === 401)
      throw loginRedirect(args.request, { "Set-Cookie": clearSessionCookie(args.request) });
    // Not a crate id at all (400) is as missing as an unknown one.
    if (crate.status === 400) throw data({ message: null }, { status: 404 });
    if (crate.status === 404 || crate.status === 403)
      throw data({ message: crate.generic ? null : crate.message }, { status: crate.status });
  }
  return { id, userUuid: user.uuid, crate: loaded(crate), songs };
}
