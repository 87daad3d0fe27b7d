import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pickedFile } from "~/components/admin/AdminEditor";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { MERCH, type TokenBundle } from "~/lib/shop";
import { AdminTokenBundleScreen } from "~/components/admin/AdminTokenBundleScreen";

export const meta = pageMeta("adminShop.bundlesTitle");

/**
 * One token bundle: `/admin/token-bundles/new` creates, `/admin/token-bundles/<id>` edits,
 * replaces the thumbnail (PATCH .../thumbnail) or deletes (the spec's POST to the bundle).
 */
const NEW = "new";

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  if (id === NEW) return { bundle: null };
  const res = await callApi<TokenBundle>(args, `${MERCH}/token-bundles/${encodeURIComponent(id)}`, {
    token,
  });
  if (!res.ok) adminFailure(args.request, res);
  return { bundle: res.data };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  const form = await args.request.formData();
  const path = `${MERCH}/token-bundles`;
  if (formString(form, "intent") === "delete") {
    const res = await callApi(args, `${path}/${encodeURIComponent(id)}`, { method: "POST", token });
    if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
    return redirect("/admin/token-bundles");
  }
  const amount = formString(form, "tokenAmount").trim();
  const body = {
    productId: formString(form, "productId").trim(),
    name: formString(form, "name").trim(),
    description: formString(form, "description").trim() || null,
    tokenAmount: /^\d+$/.test(amount) ? Number(amount) : amount,
  };
  const creating = id === NEW;
  const res = await callApi<TokenBundle>(
    args,
    creating ? path : `${path}/${encodeURIComponent(id)}`,
    { method: creating ? "POST" : "PATCH", token, json: body },
  );
  if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
  const upload = pickedFile(form);
  if (upload) {
    const up = await callApi<TokenBundle>(args, `${path}/${res.data.id}/thumbnail`, {
      method: "PATCH",
      token,
      body: upload,
    });
    if (!up.ok) return data({ error: up, saved: false }, { status: up.status });
  }
  if (creating) return redirect(`/admin/token-bundles/${res.data.id}`);
  return { error: null, saved: true };
}

export default function AdminTokenBundle() {
  return <AdminTokenBundleScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
