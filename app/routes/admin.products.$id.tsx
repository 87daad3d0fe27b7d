import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { PAYMENT_SERVICE, type Product } from "~/lib/payments";
import { AdminProductScreen } from "~/components/admin/AdminProductScreen";

export const meta = pageMeta("adminProducts.title");

/**
 * One product: `/admin/products/new` creates, `/admin/products/<id>` edits or deletes.
 * The API validates everything (a plan needs its level, and so on); its messages are shown
 * as they come.
 */
const NEW = "new";

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  if (id === NEW) return { product: null };
  const res = await callApi<Product>(
    args,
    `${PAYMENT_SERVICE}/api/v1/products/${encodeURIComponent(id)}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { product: res.data };
}

/** The form's fields as the API takes them: "" clears an optional text, the price is cents. */
function bodyOf(form: FormData, creating: boolean) {
  const optional = (name: string) => formString(form, name).trim() || null;
  const price = formString(form, "price").trim();
  const body: Record<string, unknown> = {
    name: formString(form, "name").trim(),
    description: optional("description"),
    paymentType: formString(form, "paymentType"),
    price: /^\d+$/.test(price) ? Number(price) : price,
    currency: formString(form, "currency").trim() || "usd",
    subscriptionLevel: optional("subscriptionLevel"),
    stripePriceId: optional("stripePriceId"),
    active: form.get("active") === "on",
  };
  if (creating && optional("id")) body.id = optional("id");
  return body;
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireAdmin(args);
  const id = args.params.id ?? "";
  const form = await args.request.formData();
  const intent = formString(form, "intent");
  const path = `${PAYMENT_SERVICE}/api/v1/products`;
  if (intent === "delete") {
    const res = await callApi(args, `${path}/${encodeURIComponent(id)}`, {
      method: "DELETE",
      token,
    });
    if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
    return redirect("/admin/products");
  }
  const creating = id === NEW;
  const res = await callApi<Product>(args, creating ? path : `${path}/${encodeURIComponent(id)}`, {
    method: creating ? "POST" : "PATCH",
    token,
    json: bodyOf(form, creating),
  });
  if (!res.ok) return data({ error: res, saved: false }, { status: res.status });
  if (creating) return redirect(`/admin/products/${encodeURIComponent(res.data.id)}`);
  return { error: null, saved: true };
}

export default function AdminProduct() {
  return <AdminProductScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
